#!/bin/bash
# web-e2e-cgi.sh - web-e2e.sh with s.cgi as a plain CGI program run per
# request by fcgiwrap (mpseek-web --cgi).
WEB_MODE=cgi
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/web-e2e.sh"
