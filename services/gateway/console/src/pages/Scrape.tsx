// The scrape playground: a URL, the formats, a JSON schema or a prompt; the answer beside the
// rendered page, with what it cost; and the same request as curl and SDK code to copy. It calls
// POST /v1/scrape as any client does, so what it shows is what the API answers and bills.
import { useMemo, useState } from 'preact/hooks';
import { api } from '../api/client.js';
import { useAction } from '../api/use-action.js';
import { Alert } from '../components/Alert.js';
import { Copy } from '../components/Copy.js';
import { PageHeading } from '../components/PageHeading.js';
import { formatCredits } from '../lib/format.js';
import { curlOf, type Json, pythonScrapeOf, typescriptScrapeOf } from '../lib/snippets.js';

/** The formats offered, in the order the answer shows them. */
const FORMATS = [
  { name: 'markdown', label: 'Markdown' },
  { name: 'screenshot', label: 'Screenshot (the page as rendered)' },
  { name: 'json', label: 'JSON (a model fills a schema or answers a prompt)' },
  { name: 'summary', label: 'Summary (a model)' },
  { name: 'links', label: 'Links' },
  { name: 'html', label: 'HTML' },
] as const;
type Format = (typeof FORMATS)[number]['name'];

const EXAMPLE_SCHEMA = `{
  "type": "object",
  "properties": {
    "title": { "type": "string" },
    "price": { "type": "number" }
  }
}`;

interface Scraped {
  data: {
    markdown?: string;
    html?: string;
    links?: string[];
    screenshot?: string;
    json?: Record<string, unknown>;
    summary?: string;
    warnings?: string[];
    errors?: Record<string, { code: string; message: string }>;
    metadata?: Record<string, unknown>;
  };
  usage: { credits: number; meters: Record<string, number> };
}

interface Form {
  url: string;
  formats: Format[];
  schema: string;
  prompt: string;
  model: string;
  engine: 'auto' | 'fetch' | 'browser';
  onlyMainContent: boolean;
}

/** The request body the form says, or why it cannot be sent (the schema is not JSON). */
function bodyOf(form: Form): { body: Record<string, Json>; invalid?: string } {
  const formats: Json[] = [];
  let invalid: string | undefined;
  for (const name of form.formats) {
    if (name !== 'json') {
      formats.push(name);
      continue;
    }
    const json: Record<string, Json> = { type: 'json' };
    if (form.schema.trim()) {
      try {
        json.schema = JSON.parse(form.schema) as Json;
      } catch (err) {
        invalid = `The schema is not JSON: ${(err as Error).message}`;
      }
    }
    if (form.prompt.trim()) json.prompt = form.prompt.trim();
    formats.push(json);
  }
  const body: Record<string, Json> = { url: form.url.trim(), formats };
  if (!form.onlyMainContent) body.onlyMainContent = false;
  if (form.engine !== 'auto') body.engine = form.engine;
  if (form.model.trim() && form.formats.some((f) => f === 'json' || f === 'summary')) body.model = form.model.trim();
  return { body, invalid };
}

export function Scrape() {
  const [form, setForm] = useState<Form>({
    url: '',
    formats: ['markdown', 'screenshot'],
    schema: '',
    prompt: '',
    model: '',
    engine: 'auto',
    onlyMainContent: true,
  });
  const [answer, setAnswer] = useState<{ scraped: Scraped; seconds: number }>();
  const [invalid, setInvalid] = useState<string>();
  const action = useAction();
  const set = <K extends keyof Form>(key: K, value: Form[K]) => setForm((f) => ({ ...f, [key]: value }));
  const toggle = (name: Format, on: boolean) =>
    set(
      'formats',
      FORMATS.map((f) => f.name).filter((f) => (f === name ? on : form.formats.includes(f))),
    );
  const { body } = useMemo(() => bodyOf(form), [form]);
  const asksJson = form.formats.includes('json');

  const send = (event: Event) => {
    event.preventDefault();
    const { body, invalid } = bodyOf(form);
    setInvalid(invalid);
    if (invalid) return;
    action.run(async () => {
      const started = performance.now();
      setAnswer(undefined);
      const scraped = await api<Scraped>('/v1/scrape', { method: 'POST', body });
      const seconds = (performance.now() - started) / 1000;
      setAnswer({ scraped, seconds });
      return `Scraped in ${seconds.toFixed(1)} s for ${formatCredits(scraped.usage.credits)} credits.`;
    });
  };

  return (
    <>
      <PageHeading title="Scrape">Scrape</PageHeading>
      <p class="note">
        Try a scrape as the API does it: the answer, what it cost, and the request as code. It is billed like any
        scrape.
      </p>
      <section aria-labelledby="scrape-request">
        <h2 id="scrape-request">Request</h2>
        <form onSubmit={send} class="stack">
          <label>
            URL
            <input
              name="url"
              type="url"
              required
              maxLength={8192}
              placeholder="https://example.com/"
              value={form.url}
              onInput={(e) => set('url', e.currentTarget.value)}
            />
          </label>
          <fieldset>
            <legend>Formats</legend>
            {FORMATS.map((f) => (
              <label key={f.name} class="check">
                <input
                  type="checkbox"
                  name="formats"
                  value={f.name}
                  checked={form.formats.includes(f.name)}
                  onChange={(e) => toggle(f.name, e.currentTarget.checked)}
                />
                {f.label}
              </label>
            ))}
          </fieldset>
          {asksJson && (
            <>
              <label>
                JSON schema
                <textarea
                  name="schema"
                  rows={8}
                  spellcheck={false}
                  class="code"
                  aria-describedby="schema-help"
                  placeholder={EXAMPLE_SCHEMA}
                  value={form.schema}
                  onInput={(e) => set('schema', e.currentTarget.value)}
                />
              </label>
              <p id="schema-help" class="note">
                An object schema: each field comes back null when the page does not hold it. A schema, a prompt, or
                both.
              </p>
              <label>
                Prompt
                <textarea
                  name="prompt"
                  rows={2}
                  maxLength={10_000}
                  value={form.prompt}
                  onInput={(e) => set('prompt', e.currentTarget.value)}
                />
              </label>
            </>
          )}
          <div class="fields">
            <label>
              Engine
              <select
                name="engine"
                value={form.engine}
                onChange={(e) => set('engine', e.currentTarget.value as Form['engine'])}
              >
                <option value="auto">Auto (renders only pages that need scripts)</option>
                <option value="fetch">Fetch</option>
                <option value="browser">Browser</option>
              </select>
            </label>
            <label>
              Model
              <input
                name="model"
                type="text"
                maxLength={100}
                autocomplete="off"
                spellcheck={false}
                placeholder="the deployment's default"
                value={form.model}
                onInput={(e) => set('model', e.currentTarget.value)}
              />
            </label>
          </div>
          <label class="check">
            <input
              type="checkbox"
              name="onlyMainContent"
              checked={form.onlyMainContent}
              onChange={(e) => set('onlyMainContent', e.currentTarget.checked)}
            />
            Only the main content (no navigation, footers or ads)
          </label>
          <button type="submit" class="primary" disabled={action.busy}>
            {action.busy ? 'Scraping…' : 'Scrape'}
          </button>
        </form>
        {invalid && (
          <div role="alert" class="alert">
            <p>{invalid}</p>
          </div>
        )}
        <Alert error={action.error} />
        <p role="status" class="status">
          {action.said}
        </p>
      </section>
      {answer && <Answer {...answer} />}
      <Code body={body} />
    </>
  );
}

/** What the API answered: the page as rendered beside each format, and what it cost. */
function Answer({ scraped, seconds }: { scraped: Scraped; seconds: number }) {
  const { data, usage } = scraped;
  const meta = data.metadata ?? {};
  const sessionId = typeof meta.sessionId === 'string' ? meta.sessionId : undefined;
  return (
    <section aria-labelledby="scrape-answer">
      <h2 id="scrape-answer">Answer</h2>
      <dl class="facts">
        <dt>Credits</dt>
        <dd>{formatCredits(usage.credits)}</dd>
        <dt>Time</dt>
        <dd>{seconds.toFixed(1)} s</dd>
        <dt>Status code</dt>
        <dd>{String(meta.statusCode ?? '—')}</dd>
        <dt>Engine</dt>
        <dd>
          {String(meta.engine ?? '—')}
          {meta.cached === true && ' (a stored copy)'}
        </dd>
        {typeof meta.title === 'string' && (
          <>
            <dt>Title</dt>
            <dd>{meta.title}</dd>
          </>
        )}
        {sessionId && (
          <>
            <dt>Browser session</dt>
            <dd>
              <a href={`/console/sessions/${encodeURIComponent(sessionId)}`}>Its replay and network log</a>
            </dd>
          </>
        )}
      </dl>
      {Object.entries(data.errors ?? {}).map(([format, error]) => (
        <div role="alert" class="alert" key={format}>
          <p>
            {format}: {error.message} ({error.code})
          </p>
        </div>
      ))}
      {data.warnings?.length ? (
        <ul aria-label="Warnings">
          {data.warnings.map((w) => (
            <li key={w}>{w}</li>
          ))}
        </ul>
      ) : null}
      <div class="playground">
        {data.screenshot && (
          <figure>
            <img src={data.screenshot} alt="The page as rendered" />
            <figcaption>The page as rendered</figcaption>
          </figure>
        )}
        <div>
          {data.json !== undefined && <Output title="JSON" text={JSON.stringify(data.json, null, 2)} />}
          {data.summary !== undefined && (
            <section aria-label="Summary">
              <h3>Summary</h3>
              <p>{data.summary}</p>
            </section>
          )}
          {data.markdown !== undefined && <Output title="Markdown" text={data.markdown} />}
          {data.links && <Output title="Links" text={data.links.join('\n')} />}
          {data.html !== undefined && <Output title="HTML" text={data.html} />}
        </div>
      </div>
    </section>
  );
}

/** One format's text, scrollable (by keyboard too: it takes focus), with its Copy button. */
function Output({ title, text }: { title: string; text: string }) {
  return (
    <section aria-label={title}>
      <h3>
        {title} <Copy value={text} what={title} />
      </h3>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region is reached by keyboard to scroll it. */}
      <pre class="output" tabIndex={0}>
        {text}
      </pre>
    </section>
  );
}

/** The request as code: what the form says now, whether sent or not. */
function Code({ body }: { body: Record<string, Json> }) {
  const base = window.location.origin;
  const snippets = [
    { title: 'curl', text: curlOf(base, '/v1/scrape', body) },
    { title: 'TypeScript', text: typescriptScrapeOf(base, body) },
    { title: 'Python', text: pythonScrapeOf(base, body) },
  ];
  return (
    <section aria-labelledby="scrape-code">
      <h2 id="scrape-code">As code</h2>
      <p class="note">The same request from a program, the key read from SERVICE_API_KEY.</p>
      {snippets.map((s) => (
        <Output key={s.title} title={s.title} text={s.text} />
      ))}
    </section>
  );
}
