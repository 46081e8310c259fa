-- A URL's request to its host is done: its host place is free for the next.
CREATE OR REPLACE FUNCTION crawl_downloaded(p_crawl UUID, p_key TEXT) RETURNS VOID
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  UPDATE crawl_urls SET download_until = NULL WHERE crawl_id = p_crawl AND url_key = p_key AND state = 'fetching';
END $$;
