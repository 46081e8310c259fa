-- AlterTable
ALTER TABLE "crawls" ADD COLUMN     "closed_at" TIMESTAMPTZ(3);

-- What the start page's sitemaps list arrives after the page: a crawl closed
-- meanwhile (cancelled, at its limit, past its deadline) takes none of it, so
-- its counters stay final.
CREATE OR REPLACE FUNCTION crawl_add_urls(p_crawl UUID, p_parent TEXT, p_keys TEXT[], p_urls TEXT[], p_hosts TEXT[],
                                          p_depths INTEGER[])
RETURNS TEXT[]
LANGUAGE plpgsql AS $$
DECLARE
  fresh TEXT[];
BEGIN
  IF EXISTS (SELECT 1 FROM crawls WHERE id = p_crawl AND closed_at IS NOT NULL) THEN
    UPDATE crawls SET sitemaps_pending = false WHERE id = p_crawl;
    RETURN '{}';
  END IF;
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

-- A take batch frees the places of downloads that are done before it takes,
-- but no longer waits for a URL row another transaction holds: that is almost
-- always the page's own delivery, which frees the place itself when it
-- commits. Waiting for it cost a batch of takes 4 ms on average on the bench
-- (a delivery's transaction), with host places standing empty meanwhile.
-- The rows taken are still locked in key order, after the skipped ones, so a
-- take batch never waits for a row while another waits for one it holds.
CREATE OR REPLACE FUNCTION crawl_take_many(p_crawls UUID[], p_keys TEXT[], p_allowed BOOLEAN[],
                                           p_max_per_host INTEGER[], p_lease_ms INTEGER,
                                           p_downloaded_crawls UUID[], p_downloaded_keys TEXT[])
RETURNS TABLE (i INTEGER, kind TEXT, wait_ms INTEGER, depth INTEGER)
LANGUAGE plpgsql AS $$
DECLARE
  n INTEGER;
BEGIN
  UPDATE crawl_urls cu SET download_until = NULL
    FROM (SELECT x.crawl_id, x.url_key FROM crawl_urls x
            JOIN unnest(p_downloaded_crawls, p_downloaded_keys) AS t(c, k) ON x.crawl_id = t.c AND x.url_key = t.k
           WHERE x.state = 'fetching' ORDER BY x.crawl_id, x.url_key FOR UPDATE OF x SKIP LOCKED) l
   WHERE cu.crawl_id = l.crawl_id AND cu.url_key = l.url_key;
  PERFORM 1 FROM crawl_urls cu
    JOIN unnest(p_crawls, p_keys) AS t(c, k) ON cu.crawl_id = t.c AND cu.url_key = t.k
   ORDER BY cu.crawl_id, cu.url_key FOR UPDATE OF cu;
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
