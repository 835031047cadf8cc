-- upgrade-2-to-3.sql - schema version 2 to 3 (sql/README, "Upgrades").
--
-- Version 3 keeps, per site, the tag of its URLs (sites.tag: the Tag of
-- its Server lines, -1 when they differ), so that `mpseek-index --tag N`
-- finds the free sites of tag N with due URLs from the sites table alone
-- (doc/DATABASE.md, "Tags").  The column is filled here from the tags the
-- site's live URLs carry (one pass over urlword); every seeding sets it from
-- the config from then on.
--
-- Stop every mpseek program that uses the database, back it up, then:
--     mariadb mpseek < sql/upgrade-2-to-3.sql
ALTER TABLE sites ADD COLUMN IF NOT EXISTS tag int NOT NULL DEFAULT 0,
	ADD KEY IF NOT EXISTS tag_due (tag, next_due, site_id);
UPDATE sites s SET s.tag = COALESCE((SELECT IF(MIN(u.tag) = MAX(u.tag), MIN(u.tag), -1)
	FROM urlword u FORCE INDEX (site_claim)
	WHERE u.site_id = s.site_id AND u.deleted = 0), 0);
UPDATE mpseek_meta SET value = '3' WHERE name = 'schema_version';
