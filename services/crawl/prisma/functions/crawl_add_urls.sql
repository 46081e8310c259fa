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
