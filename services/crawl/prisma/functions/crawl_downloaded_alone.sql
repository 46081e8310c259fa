-- Downloads done, sent alone when no batch of takes comes to carry them. A lost
-- one only keeps a host place until the lease ends: no WAL flush awaited.
CREATE OR REPLACE FUNCTION crawl_downloaded_alone(p_crawls UUID[], p_keys TEXT[]) RETURNS VOID
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  PERFORM crawl_downloaded_many(p_crawls, p_keys);
END $$;
