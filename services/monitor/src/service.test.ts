// The skeleton runs: its config, its migrations, the shared runtime, health and a clean stop.
import { test } from 'node:test';
import { startsServesAndStops } from '@wap/testkit';

test('the monitor service starts, serves gRPC health and exits 0 on SIGTERM', () => startsServesAndStops('monitor'));
