-- Downloads done: their URLs' host places are free. Sent with the worker's next
-- batch of takes (which are what need the places), or alone when none comes
-- (crawl_downloaded_alone). Rows are locked sorted by key, as every batch locks them.
CREATE OR REPLACE FUNCTION crawl_downloaded_many(p_crawls UUID[], p_keys TEXT[]) RETURNS VOID
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE crawl_urls cu SET download_until = NULL
    FROM (SELECT x.crawl_id, x.url_key FROM crawl_urls x
            JOIN unnest(p_crawls, p_keys) AS t(c, k) ON x.crawl_id = t.c AND x.url_key = t.k
           WHERE x.state = 'fetching' ORDER BY x.crawl_id, x.url_key FOR UPDATE OF x) l
   WHERE cu.crawl_id = l.crawl_id AND cu.url_key = l.url_key;
END $$;
