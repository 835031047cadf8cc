/* cgi_main.c - main() of s.cgi: the whole request is cgi_main()'s
 * (src/cgi_page.c); the process exits 0 also after an error page, which the
 * web server shows.
 */
#include "config.h"

#include "cgi.h"

int main(void)
{
	return cgi_main(SYSCONFDIR "/s.htm");
}
