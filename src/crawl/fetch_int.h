/* fetch_int.h - what the rooms of the fetch module share (fetch.c drives the
 * transfers, fetch_events.c tells libcurl which of their sockets are ready).
 */
#ifndef MPSEEK_FETCH_INT_H
#define MPSEEK_FETCH_INT_H

#include <curl/curl.h>

/* libcurl's socket API driven by epoll (doc/FETCH.md, "Width"): libcurl
 * says which sockets to watch (CURLMOPT_SOCKETFUNCTION) and when its next
 * timeout is due (CURLMOPT_TIMERFUNCTION); the fetcher waits in
 * epoll_wait() and hands libcurl only the sockets that are ready, so a
 * turn of the loop costs what happened, not the number of transfers. */
struct fetch_events {
	CURLM *multi;
	int epfd;                   /* the transfers' sockets and wakefd */
	int wakefd;                 /* eventfd: fetch_events_wake() from any thread */
	double timer_at;            /* libcurl's timeout, monotonic seconds; < 0: none */
	unsigned long timer_calls;  /* times libcurl set it */
	int running;                /* socket_action()'s out-parameter (fetch.c counts its own) */
};

/* Set up ev for multi (its socket and timer callbacks).  0 or -1 (logged). */
int fetch_events_init(struct fetch_events *ev, CURLM *multi);
void fetch_events_free(struct fetch_events *ev);

/* Wait at most timeout_ms (0: do not wait, -1: no limit) for a socket to be
 * ready, a wake-up or libcurl's timeout, and let libcurl act on every ready
 * socket and on its timeout if it is due.  Returns libcurl's error, if any. */
CURLMcode fetch_events_drive(struct fetch_events *ev, int timeout_ms);

/* Let libcurl act on its timeout if it is due (a transfer just added is
 * due at once), without waiting or looking at sockets. */
CURLMcode fetch_events_timeout(struct fetch_events *ev);

/* Make a fetch_events_drive() that waits (or the next one) return.  The one
 * function that may be called from another thread. */
void fetch_events_wake(struct fetch_events *ev);

#endif
