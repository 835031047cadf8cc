-- upgrade-2-to-3.sql - schema version 2 to 3 (sql/README, "Upgrades").
--
-- Version 3 adds two columns to sites and two tables for recrawl by value.
--
-- sites.scope keeps a digest of the site's scope as its Server lines gave it
-- at the last crawl, so that a Server line that widens or narrows a site
-- takes effect at the next plain run: the site's pages are fetched again in
-- full and their links admitted under the new scope (doc/CRAWL.md, "Server
-- scope").  The column starts empty: the first crawl after the upgrade fills
-- it, and recrawls the sites whose Server lines scope them differently from
-- the mpseek that made the database (a Server URL with a path used to admit
-- only the URLs under it).
--
-- sites.tag keeps the tag of the site's URLs (the Tag of its Server lines,
-- -1 when they differ), so that `mpseek-index --tag N` finds the free sites
-- of tag N with due URLs from the sites table alone (doc/DATABASE.md,
-- "Tags").  The column is filled here from the tags the site's live URLs
-- carry (one pass over urlword); every seeding sets it from the config from
-- then on.
--
-- recrawl and recrawl_limits hold the fetch history and the rate multipliers
-- of the URLs of Servers with RecrawlMode value (doc/CRAWL.md, "Recrawl by
-- value"); they start empty (a URL's history starts at its next fetch).
--
-- Stop every mpseek program that uses the database, back it up, then:
--     mariadb mpseek < sql/upgrade-2-to-3.sql
ALTER TABLE sites ADD COLUMN IF NOT EXISTS scope char(32) CHARACTER SET ascii NOT NULL DEFAULT ''
	AFTER next_due;
ALTER TABLE sites ADD COLUMN IF NOT EXISTS tag int NOT NULL DEFAULT 0,
	ADD KEY IF NOT EXISTS tag_due (tag, next_due, site_id);
UPDATE sites s SET s.tag = COALESCE((SELECT IF(MIN(u.tag) = MAX(u.tag), MIN(u.tag), -1)
	FROM urlword u FORCE INDEX (site_claim)
	WHERE u.site_id = s.site_id AND u.deleted = 0), 0);
CREATE TABLE IF NOT EXISTS recrawl (
	url_id int unsigned NOT NULL,
	fetches int unsigned NOT NULL DEFAULT 0,
	changes int unsigned NOT NULL DEFAULT 0,
	unchanged_secs double NOT NULL DEFAULT 0,
	hist varbinary(128) NOT NULL DEFAULT '',
	delta double NOT NULL DEFAULT 0,
	omega double NOT NULL DEFAULT 0,
	PRIMARY KEY (url_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE TABLE IF NOT EXISTS recrawl_limits (
	site_id int unsigned NOT NULL,
	lambda double NOT NULL DEFAULT 0,
	PRIMARY KEY (site_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
UPDATE mpseek_meta SET value = '3' WHERE name = 'schema_version';
