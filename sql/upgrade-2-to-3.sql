-- upgrade-2-to-3.sql - schema version 2 to 3 (sql/README, "Upgrades").
--
-- Version 3 keeps, per site, a digest of the site's scope as its Server
-- lines gave it at the last crawl (sites.scope), so that a Server line that
-- widens or narrows a site takes effect at the next plain run: the site's
-- pages are fetched again in full and their links admitted under the new
-- scope (doc/CRAWL.md, "Server scope").  The column starts empty: the first
-- crawl after the upgrade fills it, and recrawls the sites whose Server
-- lines scope them differently from the mpseek that made the database (a
-- Server URL with a path used to admit only the URLs under it).
--
-- Stop every mpseek program that uses the database, back it up, then:
--     mariadb mpseek < sql/upgrade-2-to-3.sql
ALTER TABLE sites ADD COLUMN IF NOT EXISTS scope char(32) CHARACTER SET ascii NOT NULL DEFAULT ''
	AFTER next_due;
UPDATE mpseek_meta SET value = '3' WHERE name = 'schema_version';
