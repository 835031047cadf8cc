/* cgi_main.c - main() of s.cgi: a CGI request or a FastCGI loop, all
 * cgi_main()'s (src/web/cgi_fcgi.c); the process exits 0 also after an
 * error page, which the web server shows.
 */
#include "config.h"

#include "cgi.h"

int main(int argc, char **argv)
{
	return cgi_main(argc, argv, SYSCONFDIR "/s.htm");
}
