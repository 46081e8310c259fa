-- The built-in search index's one write: the last copy of a page a workspace fetched.
-- PL/pgSQL keeps its plan; a SQL-language function is planned again on every call.
CREATE OR REPLACE FUNCTION search_index_put(p_workspace UUID, p_url TEXT, p_title TEXT, p_description TEXT,
                                            p_content TEXT, p_language TEXT) RETURNS VOID
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_documents (workspace_id, url, title, description, content, language, updated_at)
  VALUES (p_workspace, p_url, p_title, p_description, p_content, p_language, now())
  ON CONFLICT (workspace_id, url) DO UPDATE SET title = excluded.title, description = excluded.description,
    content = excluded.content, language = excluded.language, updated_at = now();
END $$;
