-- A worker's steps leave in batches (docs/decisions/0006-crawl-frontier.md, 10):
-- the takes, downloads and deliveries its pages make while one of the same kind
-- is out go together as one call, one transaction and one WAL flush. Each batch
-- locks rows in the order single steps do (URL rows, then host rows, then
-- search documents, then crawl rows), and within each kind sorted by key, so
-- batches and single steps never wait on each other in a circle.
--
-- Also fixes two faults of crawl_take. It committed without its WAL flush and
-- crawl_downloaded with it, the reverse of what decision 0006 says (a take's
-- claim and lease are what let a settled page be taken over after a crash; a
-- lost download only keeps a host place until the lease ends). And it timed a
-- host's politeness gap with now(), the start of its transaction, and rounded
-- it up: a take that began just before another committed, or that ran within
-- half a millisecond of it (next_at is kept to the millisecond), saw next_at
-- ahead and answered "wait 1 ms", even with no gap at all. On the 1,005-page
-- bench that was 459 needless waits, each a JetStream redelivery and a take.

-- The start page is delivered without waiting for its sitemaps (decision 0006,
-- 12): until the worker has added what they list, the crawl is not over,
-- whatever its counters say.
ALTER TABLE "crawls" ADD COLUMN     "sitemaps_pending" BOOLEAN NOT NULL DEFAULT false;

CREATE OR REPLACE FUNCTION crawl_take(p_crawl UUID, p_key TEXT, p_allowed BOOLEAN, p_max_per_host INTEGER, p_lease_ms INTEGER)
RETURNS TABLE (kind TEXT, wait_ms INTEGER, depth INTEGER)
LANGUAGE plpgsql AS $$
DECLARE
  u RECORD;
  c RECORD;
  host_wait INTEGER;
  busy INTEGER;
  takeover BOOLEAN;
BEGIN
  SELECT cu.host, cu.depth, cu.state, cu.lease_until INTO u
    FROM crawl_urls cu WHERE cu.crawl_id = p_crawl AND cu.url_key = p_key FOR UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'gone'::text, 0, 0; RETURN;
  END IF;
  IF u.state IN ('done', 'failed', 'skipped') THEN
    RETURN QUERY SELECT u.state::text, 0, u.depth; RETURN;
  END IF;
  IF u.state = 'fetching' AND u.lease_until > now() THEN
    RETURN QUERY SELECT 'wait'::text, least(ceil(extract(epoch FROM u.lease_until - now()) * 1000)::int, 30000), u.depth;
    RETURN;
  END IF;
  -- A fetching URL whose lease ran out was taken by a worker that died: its claim still counts.
  takeover := u.state = 'fetching';
  SELECT cr.status, cr.completed, cr."limit" INTO c FROM crawls cr WHERE cr.id = p_crawl;
  IF c.status <> 'running' THEN
    PERFORM crawl_skip(p_crawl, p_key, takeover);
    RETURN QUERY SELECT 'stopped'::text, 0, u.depth; RETURN;
  END IF;
  -- The clock, not now(): now() is when the transaction began, and a take that began
  -- before another committed would see that one's next_at ahead of it and wait for
  -- nothing. Rounded down: next_at is kept to the millisecond, rounded to nearest,
  -- so a gap of 0 could otherwise read as "wait 1 ms".
  SELECT greatest(0, floor(extract(epoch FROM h.next_at - clock_timestamp()) * 1000))::int INTO host_wait
    FROM crawl_hosts h WHERE h.crawl_id = p_crawl AND h.host = u.host FOR UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'needs_host'::text, 0, u.depth; RETURN;
  END IF;
  IF NOT p_allowed THEN
    PERFORM crawl_skip(p_crawl, p_key, takeover);
    RETURN QUERY SELECT 'robots'::text, 0, u.depth; RETURN;
  END IF;
  IF host_wait > 0 THEN
    RETURN QUERY SELECT 'wait'::text, host_wait, u.depth; RETURN;
  END IF;
  SELECT count(*)::int INTO busy FROM crawl_urls cu
   WHERE cu.crawl_id = p_crawl AND cu.host = u.host AND cu.state = 'fetching' AND cu.download_until > now();
  IF busy >= p_max_per_host THEN
    RETURN QUERY SELECT 'wait'::text, 100, u.depth; RETURN;
  END IF;
  IF NOT takeover THEN
    UPDATE crawls SET claimed = claimed + 1 WHERE id = p_crawl AND claimed < "limit";
    IF NOT FOUND THEN
      -- Pages in flight may still fail and give their claim back: wait for them.
      IF c.completed < c."limit" THEN
        RETURN QUERY SELECT 'wait'::text, 250, u.depth; RETURN;
      END IF;
      PERFORM crawl_skip(p_crawl, p_key, false);
      RETURN QUERY SELECT 'limit'::text, 0, u.depth; RETURN;
    END IF;
  END IF;
  UPDATE crawl_urls SET state = 'fetching', lease_until = now() + p_lease_ms * interval '1 millisecond',
                        download_until = now() + p_lease_ms * interval '1 millisecond'
   WHERE crawl_id = p_crawl AND url_key = p_key;
  UPDATE crawl_hosts SET next_at = clock_timestamp() + gap_ms * interval '1 millisecond'
   WHERE crawl_id = p_crawl AND host = u.host;
  RETURN QUERY SELECT 'fetch'::text, 0, u.depth;
END $$;

CREATE OR REPLACE FUNCTION crawl_downloaded(p_crawl UUID, p_key TEXT) RETURNS VOID
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  UPDATE crawl_urls SET download_until = NULL WHERE crawl_id = p_crawl AND url_key = p_key AND state = 'fetching';
END $$;

-- Downloads done: their URLs' host places are free. Sent with the worker's next
-- batch of takes (which are what need the places), or alone when none comes.
-- A lost one only keeps a host place until the lease ends: no WAL flush awaited
-- when alone. Rows are locked sorted by key, as every batch locks them.
CREATE FUNCTION crawl_downloaded_many(p_crawls UUID[], p_keys TEXT[]) RETURNS VOID
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE crawl_urls cu SET download_until = NULL
    FROM (SELECT x.crawl_id, x.url_key FROM crawl_urls x
            JOIN unnest(p_crawls, p_keys) AS t(c, k) ON x.crawl_id = t.c AND x.url_key = t.k
           WHERE x.state = 'fetching' ORDER BY x.crawl_id, x.url_key FOR UPDATE OF x) l
   WHERE cu.crawl_id = l.crawl_id AND cu.url_key = l.url_key;
END $$;

CREATE FUNCTION crawl_downloaded_alone(p_crawls UUID[], p_keys TEXT[]) RETURNS VOID
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  PERFORM crawl_downloaded_many(p_crawls, p_keys);
END $$;

-- Takes of a batch: row i of the answer is the take of (p_crawls[i], p_keys[i]).
-- Within one batch, a later take sees the earlier ones (a host's place, its
-- politeness gap, the crawl's claims), exactly as if they had run one by one.
-- The downloads the worker finished since its last batch are recorded first.
CREATE FUNCTION crawl_take_many(p_crawls UUID[], p_keys TEXT[], p_allowed BOOLEAN[], p_max_per_host INTEGER[],
                                p_lease_ms INTEGER, p_downloaded_crawls UUID[], p_downloaded_keys TEXT[])
RETURNS TABLE (i INTEGER, kind TEXT, wait_ms INTEGER, depth INTEGER)
LANGUAGE plpgsql AS $$
DECLARE
  n INTEGER;
BEGIN
  PERFORM 1 FROM crawl_urls cu
    JOIN (SELECT * FROM unnest(p_crawls, p_keys) UNION SELECT * FROM unnest(p_downloaded_crawls, p_downloaded_keys))
      AS t(c, k) ON cu.crawl_id = t.c AND cu.url_key = t.k
   ORDER BY cu.crawl_id, cu.url_key FOR UPDATE OF cu;
  PERFORM crawl_downloaded_many(p_downloaded_crawls, p_downloaded_keys);
  PERFORM 1 FROM crawl_hosts h
   WHERE (h.crawl_id, h.host) IN (SELECT cu.crawl_id, cu.host FROM crawl_urls cu
                                    JOIN unnest(p_crawls, p_keys) AS t(c, k) ON cu.crawl_id = t.c AND cu.url_key = t.k)
   ORDER BY h.crawl_id, h.host FOR UPDATE OF h;
  -- Crawl rows are locked by the takes themselves, one crawl after another.
  FOR n IN SELECT t.o::int FROM unnest(p_crawls) WITH ORDINALITY AS t(c, o) ORDER BY t.c, t.o LOOP
    RETURN QUERY SELECT n, r.kind, r.wait_ms, r.depth
      FROM crawl_take(p_crawls[n], p_keys[n], p_allowed[n], p_max_per_host[n], p_lease_ms) r;
  END LOOP;
END $$;

-- Deliveries of a batch: page i is (p_crawls[i], p_keys[i], ...), its document
-- the bytes of p_documents from p_document_ends[i - 1] to p_document_ends[i]
-- (one bytea travels in binary; an array of them would travel in hex), and
-- link j belongs to page p_link_pages[j]. Row i of the answer has the page's seq (NULL when its
-- URL was no longer being fetched: another worker delivered it), the keys of the
-- links it queued, and its crawl's open count and limit after the batch.
-- Within a crawl, the batch's pages take consecutive seqs in the order given.
CREATE FUNCTION crawl_deliver_many(p_crawls UUID[], p_keys TEXT[], p_depths INTEGER[], p_documents BYTEA,
                                   p_document_ends INTEGER[], p_index_urls TEXT[], p_titles TEXT[],
                                   p_descriptions TEXT[], p_contents TEXT[],
                                   p_languages TEXT[], p_final_keys TEXT[], p_final_urls TEXT[], p_final_hosts TEXT[],
                                   p_link_pages INTEGER[], p_link_keys TEXT[], p_link_urls TEXT[], p_link_hosts TEXT[],
                                   p_link_depths INTEGER[])
RETURNS TABLE (i INTEGER, seq INTEGER, queued TEXT[], open INTEGER, at_limit BOOLEAN)
LANGUAGE plpgsql AS $$
DECLARE
  mine INTEGER[];
  fresh_crawls UUID[];
  fresh_keys TEXT[];
  fresh_parents TEXT[];
  c RECORD;
  r RECORD;
BEGIN
  -- 1. The pages whose URL this batch still fetches become done (a URL listed twice counts once).
  WITH pages AS (
    SELECT DISTINCT ON (t.c, t.k) t.c, t.k, t.o::int AS o
      FROM unnest(p_crawls, p_keys) WITH ORDINALITY AS t(c, k, o) ORDER BY t.c, t.k, t.o
  ), locked AS (
    SELECT cu.crawl_id, cu.url_key FROM crawl_urls cu JOIN pages p ON cu.crawl_id = p.c AND cu.url_key = p.k
     WHERE cu.state = 'fetching' ORDER BY cu.crawl_id, cu.url_key FOR UPDATE OF cu
  ), done AS (
    UPDATE crawl_urls cu SET state = 'done', lease_until = NULL, download_until = NULL
      FROM locked l WHERE cu.crawl_id = l.crawl_id AND cu.url_key = l.url_key
    RETURNING cu.crawl_id, cu.url_key
  )
  SELECT coalesce(array_agg(p.o ORDER BY p.o), '{}') INTO mine FROM pages p JOIN done d ON d.crawl_id = p.c AND d.url_key = p.k;

  -- 2. New URL rows, in key order: where a redirect landed (known, done, counted nowhere) and the links found.
  WITH cand AS (
    SELECT DISTINCT ON (x.c, x.k) x.c, x.k, x.u, x.h, x.d, x.state, x.parent
      FROM (SELECT p_crawls[m] AS c, p_final_keys[m] AS k, p_final_urls[m] AS u, p_final_hosts[m] AS h,
                   p_depths[m] AS d, 'done'::text AS state, p_keys[m] AS parent, 0 AS rank, m AS o
              FROM unnest(mine) AS m WHERE p_final_keys[m] IS NOT NULL AND p_final_keys[m] <> p_keys[m]
            UNION ALL
            SELECT p_crawls[l.pg], l.k, l.u, l.h, l.d, 'pending', p_keys[l.pg], 1, l.pg
              FROM unnest(p_link_pages, p_link_keys, p_link_urls, p_link_hosts, p_link_depths) AS l(pg, k, u, h, d)
             WHERE l.pg = ANY(mine)) x
     ORDER BY x.c, x.k, x.rank, x.o
  ), inserted AS (
    INSERT INTO crawl_urls (crawl_id, url_key, url, host, depth, state, parent_key)
    SELECT cand.c, cand.k, cand.u, cand.h, cand.d, cand.state, cand.parent FROM cand
     WHERE NOT EXISTS (SELECT 1 FROM crawl_urls x WHERE x.crawl_id = cand.c AND x.url_key = cand.k)
     ORDER BY cand.c, cand.k
    ON CONFLICT DO NOTHING
    RETURNING crawl_id, url_key, parent_key, state
  )
  SELECT coalesce(array_agg(crawl_id), '{}'), coalesce(array_agg(url_key), '{}'), coalesce(array_agg(parent_key), '{}')
    INTO fresh_crawls, fresh_keys, fresh_parents
    FROM inserted WHERE state = 'pending';

  -- 3. The search index, before any crawl row is locked (a workspace's last copy of a URL wins).
  INSERT INTO search_documents (workspace_id, url, title, description, content, language, updated_at)
  SELECT DISTINCT ON (cr.workspace_id, p_index_urls[m]) cr.workspace_id, p_index_urls[m], p_titles[m],
         p_descriptions[m], p_contents[m], p_languages[m], now()
    FROM unnest(mine) AS m JOIN crawls cr ON cr.id = p_crawls[m]
   ORDER BY cr.workspace_id, p_index_urls[m], m DESC
  ON CONFLICT (workspace_id, url) DO UPDATE SET title = excluded.title, description = excluded.description,
    content = excluded.content, language = excluded.language, updated_at = now();

  -- 4. Each crawl's counters and pages, one crawl row after another, each locked until commit.
  FOR c IN SELECT p_crawls[m] AS id, array_agg(m ORDER BY m) AS pages
             FROM unnest(mine) AS m GROUP BY p_crawls[m] ORDER BY p_crawls[m] LOOP
    UPDATE crawls SET completed = completed + cardinality(c.pages),
                      discovered = discovered + (SELECT count(*) FROM unnest(fresh_crawls) f WHERE f = c.id),
                      progress_at = now()
     WHERE id = c.id
    RETURNING completed - cardinality(c.pages) AS before, completed, "limit",
              discovered - completed - failed - skipped + sitemaps_pending::int AS still_open INTO r;
    INSERT INTO crawl_pages (crawl_id, seq, url_key, depth, document)
    SELECT c.id, r.before + x.o, p_keys[x.m], p_depths[x.m],
           substring(p_documents FROM coalesce(p_document_ends[x.m - 1], 0) + 1
                                 FOR p_document_ends[x.m] - coalesce(p_document_ends[x.m - 1], 0))
      FROM unnest(c.pages) WITH ORDINALITY AS x(m, o);
    RETURN QUERY
      SELECT x.m, (r.before + x.o)::int,
             ARRAY(SELECT f.k FROM unnest(fresh_crawls, fresh_keys, fresh_parents) AS f(fc, k, fp)
                    WHERE f.fc = c.id AND f.fp = p_keys[x.m]),
             r.still_open, r.completed >= r."limit"
        FROM unnest(c.pages) WITH ORDINALITY AS x(m, o);
  END LOOP;
  -- Pages another worker delivered first.
  RETURN QUERY SELECT t.o::int, NULL::int, NULL::text[], NULL::int, NULL::boolean
    FROM generate_series(1, coalesce(array_length(p_crawls, 1), 0)) AS t(o) WHERE NOT (t.o = ANY(mine));
END $$;

-- URLs a page's sitemaps list, added once the page itself is delivered: new
-- ones are pending children of the page (so a redelivered page publishes them
-- again), counted in discovered, and the crawl's sitemaps are no longer pending.
-- Answers the keys that were new. Rows locked as deliveries lock them.
CREATE FUNCTION crawl_add_urls(p_crawl UUID, p_parent TEXT, p_keys TEXT[], p_urls TEXT[], p_hosts TEXT[],
                               p_depths INTEGER[])
RETURNS TEXT[]
LANGUAGE plpgsql AS $$
DECLARE
  fresh TEXT[];
BEGIN
  WITH inserted AS (
    INSERT INTO crawl_urls (crawl_id, url_key, url, host, depth, parent_key)
    SELECT p_crawl, t.k, t.u, t.h, t.d, p_parent
      FROM unnest(p_keys, p_urls, p_hosts, p_depths) AS t(k, u, h, d)
     WHERE NOT EXISTS (SELECT 1 FROM crawl_urls x WHERE x.crawl_id = p_crawl AND x.url_key = t.k)
     ORDER BY t.k
    ON CONFLICT DO NOTHING
    RETURNING url_key
  )
  SELECT coalesce(array_agg(url_key), '{}') INTO fresh FROM inserted;
  UPDATE crawls SET discovered = discovered + cardinality(fresh), sitemaps_pending = false, progress_at = now()
   WHERE id = p_crawl;
  RETURN fresh;
END $$;
