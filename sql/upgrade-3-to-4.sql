-- upgrade-3-to-4.sql - schema version 3 to 4 (sql/README, "Upgrades").
--
-- Version 4 adds urlword.simhash, the 64-bit simhash of a page's words
-- that the crawl computes with its MD5 (doc/CRAWL.md, "Near-duplicates"):
-- the merge groups the pages whose simhashes differ in at most NearDupBits
-- bits, and searchd shows one page of each group.  The column starts at 0
-- (no signature: never grouped); every fetch of a changed page from then
-- on fills it, and `mpseek-index -m` refetches and re-parses every page so
-- that the next merge can group the whole index at once.
--
-- It also adds recrawl_limits.retry_secs and retry_at: a host's last
-- Retry-After on a 429/503 and when it came, which lower its rate limit in
-- RecrawlMode value until they decay (doc/CRAWL.md, "Recrawl by value").
-- They start at 0 (no Retry-After seen).
--
-- Stop every mpseek program that uses the database, back it up, then:
--     mariadb mpseek < sql/upgrade-3-to-4.sql
ALTER TABLE urlword ADD COLUMN IF NOT EXISTS simhash bigint unsigned NOT NULL DEFAULT 0
	AFTER crc;
ALTER TABLE recrawl_limits ADD COLUMN IF NOT EXISTS retry_secs double NOT NULL DEFAULT 0,
	ADD COLUMN IF NOT EXISTS retry_at int unsigned NOT NULL DEFAULT 0;
UPDATE mpseek_meta SET value = '4' WHERE name = 'schema_version';
