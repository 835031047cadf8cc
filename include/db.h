/* db.h - the only interface to SQL (MariaDB Connector/C).
 *
 * Everything that talks to the database goes through here: prepared
 * statements or mysql_real_escape_string(), never pasted input.  A lost
 * connection is re-established with back-off inside each call.
 */
#ifndef MPSEEK_DB_H
#define MPSEEK_DB_H

#include <stdbool.h>
#include <stdio.h>

struct conf;
struct db;

/* The schema version this build reads and writes (row in table `mpseek_meta`). */
#define DB_SCHEMA_VERSION 1

/* Connect as configured: DBAddr, or the embedded server's socket under
 * DataDir when no DBAddr is set (the server must already be running: see
 * dbserver_ensure()).  Retries with back-off for up to `wait_seconds`.
 * Returns 0 and a handle (free with db_close()) or -1 after logging why. */
int db_open(const struct conf *c, double wait_seconds, struct db **out);
void db_close(struct db *db);

/* Check the schema version.  With create=true an empty database gets the
 * schema.  A wrong version (or a database that is not mpseek's) is refused
 * with a clear message.  Returns 0 or -1. */
int db_schema_check(struct db *db, bool create);

/* Insert the Server URLs of the config (and their robots.txt when Robots is
 * on) with index_status = 0; existing URLs are left alone.  Returns the
 * number of URLs inserted, or -1. */
int db_seed_servers(struct db *db, const struct conf *c);

/* ASPseek's `index -S`: per HTTP status expired/total, then counts per
 * index_status and the claims/leases held.  Returns 0 or -1. */
int db_print_stats(struct db *db, FILE *out);

#endif
