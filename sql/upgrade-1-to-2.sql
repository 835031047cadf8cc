-- upgrade-1-to-2.sql - schema version 1 to 2 (sql/README, "Upgrades").
--
-- Version 2 keeps, per site, a time never later than the earliest
-- next_index_time of its live URLs (sites.next_due), so that a crawling
-- rank finds free sites with due URLs from the sites table alone instead of
-- scanning every due URL (doc/DATABASE.md, "The frontier").  The column is
-- filled from urlword's site_claim index here, two triggers keep it from
-- then on, and mpseek-index recounts it at the start of every crawl job.
--
-- Stop every mpseek program that uses the database, back it up, then:
--     mariadb mpseek < sql/upgrade-1-to-2.sql
ALTER TABLE sites ADD COLUMN IF NOT EXISTS next_due int unsigned NOT NULL DEFAULT 0,
	ADD KEY IF NOT EXISTS due (next_due, site_id);
UPDATE sites s SET s.next_due = COALESCE((SELECT MIN(u.next_index_time)
	FROM urlword u FORCE INDEX (site_claim)
	WHERE u.site_id = s.site_id AND u.deleted = 0), 4294967295);
CREATE TRIGGER IF NOT EXISTS urlword_due_insert AFTER INSERT ON urlword FOR EACH ROW
	UPDATE sites SET next_due = NEW.next_index_time
	WHERE site_id = NEW.site_id AND next_due > NEW.next_index_time AND NEW.deleted = 0;
CREATE TRIGGER IF NOT EXISTS urlword_due_update AFTER UPDATE ON urlword FOR EACH ROW
	UPDATE sites SET next_due = NEW.next_index_time
	WHERE site_id = NEW.site_id AND next_due > NEW.next_index_time AND NEW.deleted = 0;
UPDATE mpseek_meta SET value = '2' WHERE name = 'schema_version';
