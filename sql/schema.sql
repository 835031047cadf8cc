-- schema.sql - mpseek's tables, schema version 3 (doc/DATABASE.md), after
-- ASPseek 1.2's etc/sql/mysql/tables.sql, on InnoDB.
--
-- The programs carry this file compiled in (sql/embed.awk) and apply it to an
-- empty database; sql/README says how to apply it by hand.  Rules the
-- programs rely on:
--   * lines starting with "--" are comments and are dropped; a statement
--     ends with ';' at the end of a line, and only there;
--   * every statement is idempotent (IF NOT EXISTS, ON DUPLICATE KEY), so a
--     creation that was interrupted is completed by running the file again;
--   * mpseek_meta is created first and the version row is written last, so
--     "mpseek_meta without a version row" means "creation was interrupted".
--
-- Character sets: text that mpseek itself produces (content types, charset
-- names, hex digests) is ascii or utf8mb4.  Bytes that arrive from outside and
-- are stored verbatim or cut at a byte cap of include/caps.h (URLs, raw HTTP
-- header values, titles, document text, words, query strings) are binary, as
-- ASPseek stored everything: comparisons are then byte-exact (URL paths and
-- words are case-sensitive after mpseek's own folding) and a cut in the middle
-- of a UTF-8 sequence can never make a strict-mode insert fail.
--
-- Times are unix seconds in INT UNSIGNED (good until 2106): compare them in
-- SQL, never subtract them there (an unsigned result below zero is an error).

-- Schema bookkeeping: name/value pairs; 'schema_version' must equal
-- DB_SCHEMA_VERSION of include/db.h or the programs refuse the database.
CREATE TABLE IF NOT EXISTS mpseek_meta (
	name varchar(64) CHARACTER SET ascii NOT NULL,
	value varchar(255) NOT NULL DEFAULT '',
	PRIMARY KEY (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- One row per known site, key "scheme://host[:port]/" (lowercase, port only
-- when not the default).  claim_rank/lease_until are the site lease of the
-- cluster crawl: while a rank holds an unexpired lease no other rank claims
-- URLs of the site, so politeness holds across ranks (doc/CLUSTER.md).
-- next_due is never later than the earliest next_index_time of the site's
-- live URLs (4294967295: none), so that free sites with due URLs are found
-- from this table alone, whatever the number of URLs (doc/DATABASE.md,
-- "The frontier"): the triggers after urlword lower it whenever a row gets
-- an earlier time, whoever writes it (an administrator by hand included);
-- only a recount from urlword's site_claim index raises it.
-- scope is the hex MD5 of the site's scope as its Server lines gave it at the
-- last seeding ('' = never seeded by a Server line, or made before version
-- 3): a site whose scope changed is recrawled (doc/CRAWL.md, "Server scope").
CREATE TABLE IF NOT EXISTS sites (
	site_id int unsigned NOT NULL AUTO_INCREMENT,
	site varbinary(255) NOT NULL,
	claim_rank smallint NOT NULL DEFAULT -1,
	lease_until int unsigned NOT NULL DEFAULT 0,
	next_due int unsigned NOT NULL DEFAULT 0,
	scope char(32) CHARACTER SET ascii NOT NULL DEFAULT '',
	-- Tag (version 3): the urlword.tag of the site's URLs, -1 when its
	-- Server lines give them different tags; `mpseek-index --tag N` picks
	-- the sites of tag N and -1 through tag_due (doc/DATABASE.md, "Tags").
	tag int NOT NULL DEFAULT 0,
	PRIMARY KEY (site_id),
	UNIQUE KEY site (site),
	KEY due (next_due, site_id),
	KEY tag_due (tag, next_due, site_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- One row per known URL, fetched or queued (ASPseek's urlword), and the work
-- queue of the cluster crawl.
--
-- index_status: 0 not indexed yet, 1 indexed (due again when next_index_time
-- has passed), 2 being indexed by rank claim_rank until lease_until.  While a
-- URL is claimed its next_index_time equals lease_until, so one range of the
-- `claim` index holds every claimable row: URLs that are due and claims whose
-- lease has expired (a crashed rank's URLs come back by themselves).
--
-- url is up to MAX_URL_LEN bytes, too long for an index key, so uniqueness is
-- enforced on url_hash = MD5(url), a stored generated column that can never
-- disagree with url.
CREATE TABLE IF NOT EXISTS urlword (
	url_id int unsigned NOT NULL AUTO_INCREMENT,
	site_id int unsigned NOT NULL DEFAULT 0,
	deleted tinyint NOT NULL DEFAULT 0,
	url varbinary(2048) NOT NULL,
	url_hash binary(16) GENERATED ALWAYS AS (UNHEX(MD5(url))) STORED,
	next_index_time int unsigned NOT NULL DEFAULT 0,
	status smallint NOT NULL DEFAULT 0,
	crc char(32) CHARACTER SET ascii NOT NULL DEFAULT '',
	-- The simhash of the body's words (version 4; doc/CRAWL.md,
	-- "Near-duplicates"), 0 = none.
	simhash bigint unsigned NOT NULL DEFAULT 0,
	last_modified varbinary(64) NOT NULL DEFAULT '',
	etag varbinary(128) NOT NULL DEFAULT '',
	last_index_time int unsigned NOT NULL DEFAULT 0,
	referrer int unsigned NOT NULL DEFAULT 0,
	hops smallint unsigned NOT NULL DEFAULT 0,
	redir int unsigned NOT NULL DEFAULT 0,
	origin tinyint NOT NULL DEFAULT 1,
	tag int NOT NULL DEFAULT 0,
	index_status tinyint NOT NULL DEFAULT 0,
	claim_rank smallint NOT NULL DEFAULT -1,
	lease_until int unsigned NOT NULL DEFAULT 0,
	PRIMARY KEY (url_id),
	UNIQUE KEY url_hash (url_hash),
	-- The claim query: WHERE deleted = 0 AND next_index_time <= now
	-- ORDER BY next_index_time, url_id LIMIT n reads this index in order,
	-- without a filesort (a filesort would read, and so lock, every due
	-- row first: doc/DATABASE.md, "The claim query's plan").
	KEY claim (deleted, next_index_time, url_id),
	-- More URLs of a site the rank already holds (site-affine claims).
	KEY site_claim (site_id, deleted, next_index_time),
	-- Claims held per rank: releasing a rank's claims, -S.
	KEY claims (index_status, claim_rank),
	-- ASPseek's breadth-first order (index -o) and clone lookup by MD5.
	KEY hops (hops, next_index_time),
	KEY clones (origin, site_id, crc(8))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- Recrawl by value (version 3; doc/CRAWL.md, "Recrawl by value"): the
-- fetch history of a URL of a Server with RecrawlMode value, a bounded
-- summary for the estimate of its change rate: intervals observed, those
-- with a change (MD5 differs), the sum of the unchanged intervals (seconds)
-- and the changed ones as a histogram (64 counts of 2 bytes LE, bins a
-- factor sqrt 2 wide from 1 s); delta is the last estimate (changes/s)
-- and omega the value it was scheduled with, for administrators.
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

-- The multipliers of the value mode's rate limits: site_id 0 is the
-- crawl's (MaxFetchRate), kept across runs so that a new job starts where
-- the last one settled.  retry_secs and retry_at (version 4): the host's
-- last Retry-After on a 429/503 and when it came (unix time), which lower
-- its rate limit until they decay (doc/CRAWL.md, "Recrawl by value").
CREATE TABLE IF NOT EXISTS recrawl_limits (
	site_id int unsigned NOT NULL,
	lambda double NOT NULL DEFAULT 0,
	retry_secs double NOT NULL DEFAULT 0,
	retry_at int unsigned NOT NULL DEFAULT 0,
	PRIMARY KEY (site_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- sites.next_due follows every urlword row that becomes due sooner (see the
-- sites table): one primary-key lookup of the site per row written, no
-- lock unless next_due must come down.  A single statement each, so that
-- the file's one-statement-per-';' rule holds.
CREATE TRIGGER IF NOT EXISTS urlword_due_insert AFTER INSERT ON urlword FOR EACH ROW
	UPDATE sites SET next_due = NEW.next_index_time
	WHERE site_id = NEW.site_id AND next_due > NEW.next_index_time AND NEW.deleted = 0;
CREATE TRIGGER IF NOT EXISTS urlword_due_update AFTER UPDATE ON urlword FOR EACH ROW
	UPDATE sites SET next_due = NEW.next_index_time
	WHERE site_id = NEW.site_id AND next_due > NEW.next_index_time AND NEW.deleted = 0;

-- The stored documents, split by url_id mod 16 as in ASPseek: the cached
-- copy, snippets, change detection and clone promotion read `words` (4-byte
-- original length, 0xFFFFFFFF if stored raw, then zlib data); `hrefs` is the
-- sorted array of outgoing url_ids, 4 bytes each.  Widths are the byte caps
-- of include/caps.h (MAX_TITLE_LEN, MAX_TXT_LEN, MAX_KEYWORDS_LEN,
-- MAX_DESCRIPTION_LEN).
CREATE TABLE IF NOT EXISTS urlwords00 (
	url_id int unsigned NOT NULL,
	deleted tinyint NOT NULL DEFAULT 0,
	wordcount smallint unsigned NOT NULL DEFAULT 0,
	totalcount mediumint unsigned NOT NULL DEFAULT 0,
	content_type varchar(48) CHARACTER SET ascii NOT NULL DEFAULT '',
	charset varchar(32) CHARACTER SET ascii NOT NULL DEFAULT '',
	title varbinary(128) NOT NULL DEFAULT '',
	txt varbinary(255) NOT NULL DEFAULT '',
	docsize int unsigned NOT NULL DEFAULT 0,
	keywords varbinary(255) NOT NULL DEFAULT '',
	description varbinary(100) NOT NULL DEFAULT '',
	lang char(2) CHARACTER SET ascii NOT NULL DEFAULT '',
	words longblob,
	hrefs longblob,
	PRIMARY KEY (url_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE TABLE IF NOT EXISTS urlwords01 LIKE urlwords00;
CREATE TABLE IF NOT EXISTS urlwords02 LIKE urlwords00;
CREATE TABLE IF NOT EXISTS urlwords03 LIKE urlwords00;
CREATE TABLE IF NOT EXISTS urlwords04 LIKE urlwords00;
CREATE TABLE IF NOT EXISTS urlwords05 LIKE urlwords00;
CREATE TABLE IF NOT EXISTS urlwords06 LIKE urlwords00;
CREATE TABLE IF NOT EXISTS urlwords07 LIKE urlwords00;
CREATE TABLE IF NOT EXISTS urlwords08 LIKE urlwords00;
CREATE TABLE IF NOT EXISTS urlwords09 LIKE urlwords00;
CREATE TABLE IF NOT EXISTS urlwords10 LIKE urlwords00;
CREATE TABLE IF NOT EXISTS urlwords11 LIKE urlwords00;
CREATE TABLE IF NOT EXISTS urlwords12 LIKE urlwords00;
CREATE TABLE IF NOT EXISTS urlwords13 LIKE urlwords00;
CREATE TABLE IF NOT EXISTS urlwords14 LIKE urlwords00;
CREATE TABLE IF NOT EXISTS urlwords15 LIKE urlwords00;

-- The anchor text of each stored page's links (doc/SEARCH.md, "Anchor
-- text"): one row per source page, replaced whenever the page is stored
-- again and removed when it leaves the index, so the merge, which reads
-- the whole table, never sees the anchors of an old version of a page.
-- anchors holds per link: target url_id u32, target site_id u32, length
-- u16 (all LE), then that many bytes of UTF-8 text.
CREATE TABLE IF NOT EXISTS anchors (
	url_id int unsigned NOT NULL,
	anchors mediumblob NOT NULL,
	PRIMARY KEY (url_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- The dictionary word <-> word_id.  Words are stored case-folded by the
-- tokenizer, so the comparison must be binary: a collation would merge
-- distinct words ("resume" and "résumé") into one unique key.  urls,
-- urlcount and totalcount are ASPseek's legacy posting columns; with the
-- CompactStorage index only word and word_id are used.
CREATE TABLE IF NOT EXISTS wordurl (
	word varbinary(64) NOT NULL,
	word_id int unsigned NOT NULL AUTO_INCREMENT,
	urls blob,
	urlcount int unsigned NOT NULL DEFAULT 0,
	totalcount int unsigned NOT NULL DEFAULT 0,
	PRIMARY KEY (word_id),
	UNIQUE KEY word (word)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- robots.txt per site, cached: ASPseek kept one row per Disallow path; mpseek
-- keeps the fetch outcome and the parsed rules as robots.h's versioned blob,
-- so every rank sees the same rules without fetching the file again.
CREATE TABLE IF NOT EXISTS robots (
	site_id int unsigned NOT NULL,
	fetched int unsigned NOT NULL DEFAULT 0,
	expires int unsigned NOT NULL DEFAULT 0,
	status smallint NOT NULL DEFAULT 0,
	body mediumblob,
	PRIMARY KEY (site_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- The query log written by searchd, one row per query (ASPseek's stat).
-- Query strings are what the user typed: binary.
CREATE TABLE IF NOT EXISTS stat (
	stat_id bigint unsigned NOT NULL AUTO_INCREMENT,
	addr varchar(128) CHARACTER SET ascii NOT NULL DEFAULT '',
	proxy varchar(128) CHARACTER SET ascii NOT NULL DEFAULT '',
	query varbinary(255) NOT NULL DEFAULT '',
	ul varbinary(255) NOT NULL DEFAULT '',
	sp varbinary(255) NOT NULL DEFAULT '',
	site int unsigned NOT NULL DEFAULT 0,
	np smallint unsigned NOT NULL DEFAULT 0,
	ps smallint unsigned NOT NULL DEFAULT 0,
	sites int unsigned NOT NULL DEFAULT 0,
	urls int unsigned NOT NULL DEFAULT 0,
	start decimal(15,3) NOT NULL DEFAULT 0,
	finish decimal(15,3) NOT NULL DEFAULT 0,
	referer varbinary(255) NOT NULL DEFAULT '',
	PRIMARY KEY (stat_id),
	KEY start (start)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- Web spaces: sets of sites, filled by hand or by the admin verbs.
CREATE TABLE IF NOT EXISTS spaces (
	space_id int unsigned NOT NULL,
	site_id int unsigned NOT NULL,
	PRIMARY KEY (space_id, site_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- Subsets: URL masks (SQL LIKE patterns such as 'http://h/dir/%'), filled by
-- hand and materialised after a merge.
CREATE TABLE IF NOT EXISTS subsets (
	subset_id int unsigned NOT NULL AUTO_INCREMENT,
	mask varbinary(255) NOT NULL,
	PRIMARY KEY (subset_id),
	UNIQUE KEY mask (mask)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- For site: queries: a host label -> sorted array of 32-bit items (low 24 bits
-- site_id, high 8 bits the label positions), rebuilt after a merge.
CREATE TABLE IF NOT EXISTS wordsite (
	word varbinary(64) NOT NULL,
	sites longblob,
	PRIMARY KEY (word)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- Last: the version row marks the schema as complete.
INSERT INTO mpseek_meta (name, value) VALUES ('schema_version', '4')
	ON DUPLICATE KEY UPDATE name = name;
