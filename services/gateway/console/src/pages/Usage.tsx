import { api, query } from '../api/client.js';
import type { Call, Credits, UsageReport } from '../api/types.js';
import { useLoad } from '../api/use-load.js';
import { usePages } from '../api/use-pages.js';
import { Alert } from '../components/Alert.js';
import { Chart } from '../components/Chart.js';
import { CopyId } from '../components/Copy.js';
import { PageHeading } from '../components/PageHeading.js';
import { type Column, Table } from '../components/Table.js';
import { Time } from '../components/Time.js';
import { formatCredits, formatDay } from '../lib/format.js';
import { seriesLabel } from '../lib/meters.js';
import { type Bar, barsOf } from '../lib/usage-chart.js';

export function Usage() {
  const credits = useLoad((signal) => api<Credits>('/v1/credits', { signal }), []);
  const usage = useLoad((signal) => api<UsageReport>('/v1/usage', { signal }), []);
  return (
    <>
      <PageHeading title="Usage and credits">Usage and credits</PageHeading>
      <Alert error={credits.error} retry={credits.reload} />
      {credits.data && <Balance credits={credits.data} />}
      <section>
        <h2 id="per-day">Credits per day, last 30 days</h2>
        <Alert error={usage.error} retry={usage.reload} />
        {usage.data ? <PerDay report={usage.data} /> : !usage.error && <p>Loading…</p>}
      </section>
      <RecentCalls />
    </>
  );
}

function Balance({ credits: c }: { credits: Credits }) {
  return (
    <section>
      <h2 id="balance" class="visually-hidden">
        Balance
      </h2>
      <dl class="figures">
        <div>
          <dt>Available</dt>
          <dd>
            <span class="big">{formatCredits(c.available)}</span> credits
          </dd>
        </div>
        <div>
          <dt>Plan allowance ({c.allowance.plan})</dt>
          <dd>
            {formatCredits(Math.max(0, c.allowance.credits - c.allowance.spent))} of{' '}
            {formatCredits(c.allowance.credits)} credits left this month
            {c.allowance.resetsAt && (
              <>
                , renews <Time iso={c.allowance.resetsAt} />
              </>
            )}
          </dd>
        </div>
        <div>
          <dt>Held by work in progress</dt>
          <dd>{formatCredits(c.held)} credits</dd>
        </div>
      </dl>
      <Table
        caption="Credit grants"
        rows={c.grants}
        rowKey={(g) => g.id}
        empty="No grants: only the plan allowance."
        columns={[
          { header: 'Kind', cell: (g) => g.kind },
          { header: 'Remaining', cell: (g) => formatCredits(g.remaining), numeric: true },
          { header: 'Granted', cell: (g) => formatCredits(g.granted), numeric: true },
          { header: 'Lapses', cell: (g) => <Time iso={g.lapsesAt} fallback="Never" /> },
        ]}
      />
    </section>
  );
}

function PerDay({ report }: { report: UsageReport }) {
  const bars = barsOf(report.from, report.to, report.byDay);
  const columns: Column<Bar>[] = [
    { header: 'Day', cell: (b) => <time dateTime={b.day}>{formatDay(b.day, 'long')}</time> },
    { header: 'Credits', cell: (b) => formatCredits(b.total), numeric: true },
    {
      header: 'By meter',
      cell: (b) =>
        b.parts
          .map((p) => `${seriesLabel(p.series)} ${formatCredits(Math.round(p.credits * 1000) / 1000)}`)
          .join(', ') || '—',
    },
  ];
  return (
    <>
      <Chart bars={bars} />
      <details>
        <summary>Show the figures as a table</summary>
        <Table
          caption="Credits per day"
          rows={bars.filter((b) => b.total > 0)}
          rowKey={(b) => b.day}
          empty="No credits were spent in this period."
          columns={columns}
        />
      </details>
    </>
  );
}

/** The console's page of what a call is about, by capability: a run's, a session's. */
const PAGE_OF: Readonly<Record<string, string>> = {
  agent: '/console/runs/',
  connect: '/console/sessions/',
  'sessions.export': '/console/sessions/',
};

/** What the reference of a call the console has no page for is (GET /v1/usage/calls). */
const REFERENCE_OF: Readonly<Record<string, string>> = {
  scrape: 'request id',
  search: 'request id',
  crawl: 'crawl id',
  'monitors.check': 'monitor id',
};

/**
 * A call's reference: a link to its page when the console has one; else the id itself, plainly
 * text, with a Copy button to quote it to support or find it through the API.
 */
function referenceOf(call: Call) {
  const page = PAGE_OF[call.capability];
  if (page) return <a href={`${page}${encodeURIComponent(call.reference)}`}>{call.reference}</a>;
  const what = REFERENCE_OF[call.capability] ?? 'reference';
  return <CopyId id={call.reference} what={`${what} ${call.reference}`} />;
}

function RecentCalls() {
  const calls = usePages<{ calls: Call[]; nextCursor: string | null }, Call>(
    (cursor) => `/v1/usage/calls${query({ limit: 50, cursor })}`,
    (answer) => answer.calls,
    [],
  );
  return (
    <section>
      <h2 id="calls">Recent calls</h2>
      <Alert error={calls.error} retry={calls.retry} />
      <Table
        caption="Recent calls"
        rows={calls.rows}
        error={calls.error}
        rowKey={(c) => c.id}
        empty="No billable calls yet."
        stacked
        columns={[
          { header: 'Time', cell: (c) => <Time iso={c.at} /> },
          { header: 'Capability', cell: (c) => c.capability },
          { header: 'Credits', cell: (c) => formatCredits(c.usage.credits), numeric: true },
          { header: 'Reference', cell: referenceOf },
        ]}
      />
      {calls.hasMore && (
        <button type="button" onClick={calls.more}>
          Show older calls
        </button>
      )}
    </section>
  );
}
