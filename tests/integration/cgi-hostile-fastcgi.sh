#!/bin/bash
# cgi-hostile-fastcgi.sh - cgi-hostile.sh with every request sent to one
# s.cgi --fastcgi SOCKET process through libfcgi's cgi-fcgi.
CGI_MODE=fastcgi
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/cgi-hostile.sh"
