-- AlterTable
ALTER TABLE "crawls" ADD COLUMN     "closed_at" TIMESTAMPTZ(3);

-- A closed crawl takes nothing more, whatever its status says until it is
-- settled: its count of delivered pages is final (what it bills).
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
  SELECT cr.status, cr.completed, cr."limit", cr.closed_at INTO c FROM crawls cr WHERE cr.id = p_crawl;
  IF c.status <> 'running' OR c.closed_at IS NOT NULL THEN
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

-- What the start page's sitemaps list arrives after the page: a crawl closed
-- meanwhile (cancelled, at its limit, past its deadline) takes none of it, so
-- its counters stay final. The crawl row decides, under its lock: a close that
-- committed while these URLs were inserted makes them go again (nobody else
-- has seen them); a close after this commits skips them with the rest.
CREATE OR REPLACE FUNCTION crawl_add_urls(p_crawl UUID, p_parent TEXT, p_keys TEXT[], p_urls TEXT[], p_hosts TEXT[],
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
   WHERE id = p_crawl AND closed_at IS NULL;
  IF NOT FOUND THEN
    DELETE FROM crawl_urls WHERE crawl_id = p_crawl AND url_key = ANY (fresh);
    UPDATE crawls SET sitemaps_pending = false WHERE id = p_crawl;
    RETURN '{}';
  END IF;
  RETURN fresh;
END $$;

-- A take batch frees the places of downloads that are done before it takes,
-- but no longer waits for a URL row another transaction holds: that is almost
-- always the page's own delivery, which frees the place itself when it
-- commits. Waiting for it cost a batch of takes 4 ms on average on the bench
-- (a delivery's transaction), with host places standing empty meanwhile.
-- Locks as before, URL rows (those taken, in key order, waiting) before host
-- and crawl rows; the download rows are locked after the taken ones and never
-- waited for, so a row this batch holds without having waited for it is never
-- one another transaction waits for while holding a row this batch wants.
CREATE OR REPLACE FUNCTION crawl_take_many(p_crawls UUID[], p_keys TEXT[], p_allowed BOOLEAN[],
                                           p_max_per_host INTEGER[], p_lease_ms INTEGER,
                                           p_downloaded_crawls UUID[], p_downloaded_keys TEXT[])
RETURNS TABLE (i INTEGER, kind TEXT, wait_ms INTEGER, depth INTEGER)
LANGUAGE plpgsql AS $$
DECLARE
  n INTEGER;
BEGIN
  PERFORM 1 FROM crawl_urls cu
    JOIN unnest(p_crawls, p_keys) AS t(c, k) ON cu.crawl_id = t.c AND cu.url_key = t.k
   ORDER BY cu.crawl_id, cu.url_key FOR UPDATE OF cu;
  UPDATE crawl_urls cu SET download_until = NULL
    FROM (SELECT x.crawl_id, x.url_key FROM crawl_urls x
            JOIN unnest(p_downloaded_crawls, p_downloaded_keys) AS t(c, k) ON x.crawl_id = t.c AND x.url_key = t.k
           WHERE x.state = 'fetching' ORDER BY x.crawl_id, x.url_key FOR UPDATE OF x SKIP LOCKED) l
   WHERE cu.crawl_id = l.crawl_id AND cu.url_key = l.url_key;
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
