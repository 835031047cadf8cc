/* fetch_events.c - libcurl's socket API over epoll, for fetch.c.
 *
 * curl_multi_perform() looks at every running transfer on each call (and
 * polls each one's socket), so at hundreds of transfers a turn of the crawl
 * loop cost in proportion to the width, not to what happened.  Here libcurl
 * tells us which sockets to watch and when its next timeout is due, and is
 * handed only the sockets epoll_wait() found ready (libcurl's "multi_socket"
 * interface, as its hiperfifo and ephiperfifo examples drive it; doc/FETCH.md,
 * "Width").
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "fetch_int.h"
#include "log.h"
#include "util.h"

#define EVENTS_AT_ONCE 256

/* CURLMOPT_SOCKETFUNCTION: watch s for what libcurl waits for.  socketp is
 * non-NULL once s is in the epoll set (curl_multi_assign()). */
static int on_socket(CURL *easy, curl_socket_t s, int what, void *userp, void *socketp)
{
	struct fetch_events *ev = userp;
	struct epoll_event e = { 0 };
	int op;

	(void)easy;
	if (what == CURL_POLL_REMOVE) {
		/* The socket may already be closed (and so out of the set). */
		if (socketp && epoll_ctl(ev->epfd, EPOLL_CTL_DEL, s, NULL) < 0 && errno != ENOENT &&
		    errno != EBADF)
			warning("fetch: epoll_ctl(DEL, %d): %s", (int)s, strerror(errno));
		return 0;
	}
	e.events = (what & CURL_POLL_IN ? EPOLLIN : 0u) | (what & CURL_POLL_OUT ? EPOLLOUT : 0u);
	e.data.fd = s;
	op = socketp ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
	if (epoll_ctl(ev->epfd, op, s, &e) < 0) {
		/* A descriptor closed without REMOVE and reused, or the other way
		 * round: the other operation is the right one. */
		op = errno == EEXIST ? EPOLL_CTL_MOD : errno == ENOENT ? EPOLL_CTL_ADD : -1;
		if (op < 0 || epoll_ctl(ev->epfd, op, s, &e) < 0) {
			warning("fetch: epoll_ctl(%d): %s", (int)s, strerror(errno));
			return -1;
		}
	}
	if (!socketp)
		curl_multi_assign(ev->multi, s, ev);
	return 0;
}

/* CURLMOPT_TIMERFUNCTION: libcurl's next timeout, in timeout_ms (-1: none).
 * Only recorded: socket_action must not be called from here. */
static int on_timer(CURLM *multi, long timeout_ms, void *userp)
{
	struct fetch_events *ev = userp;

	(void)multi;
	ev->timer_at = timeout_ms < 0 ? -1 : now_monotonic() + (double)timeout_ms / 1000;
	ev->timer_calls++;
	return 0;
}

int fetch_events_init(struct fetch_events *ev, CURLM *multi)
{
	CURLMcode mc;
	struct epoll_event e = { .events = EPOLLIN };

	*ev = (struct fetch_events){ .multi = multi, .epfd = -1, .wakefd = -1, .timer_at = -1 };
	if ((ev->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
	    (ev->wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		error_errno("fetch: cannot create the event set");
		return -1;
	}
	e.data.fd = ev->wakefd;
	if (epoll_ctl(ev->epfd, EPOLL_CTL_ADD, ev->wakefd, &e) < 0) {
		error_errno("fetch: epoll_ctl(wake-up)");
		return -1;
	}
	mc = curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, on_socket);
	if (mc == CURLM_OK)
		mc = curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, ev);
	if (mc == CURLM_OK)
		mc = curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, on_timer);
	if (mc == CURLM_OK)
		mc = curl_multi_setopt(multi, CURLMOPT_TIMERDATA, ev);
	if (mc != CURLM_OK) {
		error("fetch: curl_multi_setopt: %s", curl_multi_strerror(mc));
		return -1;
	}
	return 0;
}

void fetch_events_free(struct fetch_events *ev)
{
	if (ev->epfd >= 0)
		close(ev->epfd);
	if (ev->wakefd >= 0)
		close(ev->wakefd);
	ev->epfd = ev->wakefd = -1;
}

/* Milliseconds until libcurl's timeout (0 if due, -1 if none). */
static int timer_ms(const struct fetch_events *ev)
{
	double left;

	if (ev->timer_at < 0)
		return -1;
	left = ev->timer_at - now_monotonic();
	/* Rounded up: waking before it is due would only wait again. */
	return left <= 0 ? 0 : left > INT32_MAX / 1000 ? INT32_MAX : (int)(left * 1000) + 1;
}

CURLMcode fetch_events_timeout(struct fetch_events *ev)
{
	unsigned long calls = ev->timer_calls;
	double now;
	CURLMcode mc;

	if (ev->timer_at < 0 || (now = now_monotonic()) < ev->timer_at)
		return CURLM_OK;
	mc = curl_multi_socket_action(ev->multi, CURL_SOCKET_TIMEOUT, 0, &ev->running);
	/* libcurl calls the timer back only when its earliest timeout changes:
	 * asked a hair before its own clock passed it, nothing expired and the
	 * old time stands.  Ask again in a millisecond, not in a spin. */
	if (ev->timer_calls == calls && ev->timer_at >= 0 && ev->timer_at <= now)
		ev->timer_at = now + 0.001;
	return mc;
}

CURLMcode fetch_events_drive(struct fetch_events *ev, int timeout_ms)
{
	struct epoll_event evs[EVENTS_AT_ONCE];
	CURLMcode mc = CURLM_OK;
	int t = timer_ms(ev), n;

	if (t >= 0 && (timeout_ms < 0 || t < timeout_ms))
		timeout_ms = t;
	do {
		n = epoll_wait(ev->epfd, evs, EVENTS_AT_ONCE, timeout_ms);
		if (n < 0 && errno != EINTR) {
			warning("fetch: epoll_wait: %s", strerror(errno));
			break;
		}
		for (int i = 0; i < n && mc == CURLM_OK; i++) {
			uint32_t e = evs[i].events;
			int fd = evs[i].data.fd, flags;
			uint64_t v;

			if (fd == ev->wakefd) {
				if (read(fd, &v, sizeof v) < 0 && errno != EAGAIN)
					warning("fetch: reading the wake-up event: %s", strerror(errno));
				continue;
			}
			flags = (e & EPOLLIN ? CURL_CSELECT_IN : 0) | (e & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
				(e & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);
			mc = curl_multi_socket_action(ev->multi, fd, flags, &ev->running);
		}
		timeout_ms = 0;   /* more ready than one call takes: take them now */
	} while (n == EVENTS_AT_ONCE && mc == CURLM_OK);
	if (mc == CURLM_OK)
		mc = fetch_events_timeout(ev);
	return mc;
}

void fetch_events_wake(struct fetch_events *ev)
{
	uint64_t one = 1;

	if (write(ev->wakefd, &one, sizeof one) < 0 && errno != EAGAIN)
		warning("fetch: wake-up: %s", strerror(errno));
}
