-- URLs a page's sitemaps list, added once the page itself is delivered: new
-- ones are pending children of the page (so a redelivered page publishes them
-- again), counted in discovered, and the crawl's sitemaps are no longer pending.
-- Answers the keys that were new. Rows locked as deliveries lock them.
--
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
