/* status.c - texts for the codes of urlword.status (status.h). */
#include "config.h"

#include "status.h"
#include "util.h"

const char *http_status_text(int st)
{
	static const struct { int code; const char *name; } names[] = {
		{ 0, "Not indexed yet" }, { 200, "OK" }, { 206, "Partial OK" },
		{ 300, "Multiple Choices" }, { 301, "Moved Permanently" },
		{ 302, "Moved Temporarily" }, { 303, "See Other" }, { 304, "Not Modified" },
		{ 305, "Use Proxy" }, { 307, "Temporary Redirect" }, { 308, "Permanent Redirect" },
		{ 400, "Bad Request" }, { 401, "Unauthorized" }, { 402, "Payment Required" },
		{ 403, "Forbidden" }, { 404, "Not found" }, { 405, "Method Not Allowed" },
		{ 406, "Not Acceptable" }, { 407, "Proxy Authentication Required" },
		{ 408, "Request Timeout" }, { 409, "Conflict" }, { 410, "Gone" },
		{ 411, "Length Required" }, { 412, "Precondition Failed" },
		{ 413, "Request Entity Too Large" }, { 414, "Request-URI Too Long" },
		{ 415, "Unsupported Media Type" }, { 429, "Too Many Requests" },
		{ 500, "Internal Server Error" }, { 501, "Not Implemented" },
		{ 502, "Bad Gateway" }, { 503, "Service Unavailable" },
		{ 504, "Gateway Timeout" }, { 505, "HTTP Version not supported" },
		{ CST_ROBOTS, "Disallowed by robots" },
		{ CST_FILTERED, "Outside the crawl (Server, filters, MaxHops)" },
		{ CST_TRAP, "Spider trap" }, { CST_TYPE, "Content type not indexed" }, { CST_BAD_URL, "Bad URL" },
		{ CST_REDIRECT_LIMIT, "Redirect limit" }, { CST_DNS, "DNS error" },
		{ CST_CONNECT, "Connection failed" }, { CST_TIMEOUT, "Timeout" },
		{ CST_PROTOCOL, "Protocol error" }, { CST_DEFERRED, "Host paused, retry later" },
		{ CST_ROBOTS_UNAVAILABLE, "robots.txt unavailable, retry later" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].code == st)
			return names[i].name;
	if (st >= 500 && st < 600)
		return "Server error";
	if (st >= 400 && st < 500)
		return "Client error";
	return "";
}
