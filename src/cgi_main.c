/* cgi_main.c - main() of s.cgi.
 *
 * Until searchd answers queries (the search issue), s.cgi answers every
 * request with the page it gives when searchd is down: HTTP 503 and a hint.
 */
#include "config.h"

#include <stdio.h>

#include "util.h"

int main(void)
{
	fputs("Status: 503 Service Unavailable\r\n"
	      "Content-Type: text/html; charset=UTF-8\r\n"
	      "Retry-After: 60\r\n\r\n"
	      "<!DOCTYPE html><html><head><title>Search unavailable</title></head>"
	      "<body><h1>Search is not available</h1>"
	      "<p>The search daemon is not running. Please try again later.</p>"
	      "</body></html>\n", stdout);
	return 0;
}
