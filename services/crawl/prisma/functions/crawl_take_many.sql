-- Takes of a batch: row i of the answer is the take of (p_crawls[i], p_keys[i]).
-- Within one batch, a later take sees the earlier ones (a host's place, its
-- politeness gap, the crawl's claims), exactly as if they had run one by one.
-- The downloads the worker finished since its last batch are recorded first.
--
-- A take batch frees the places of downloads that are done before it takes,
-- but no longer waits for a URL row another transaction holds: that is almost
-- always the page's own delivery, which frees the place itself when it
-- commits. Waiting for it cost a batch of takes 4 ms on average on the bench
-- (a delivery's transaction), with host places standing empty meanwhile.
-- Locks as crawl_take, URL rows (those taken, in key order, waiting) before host
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
