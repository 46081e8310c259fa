import '@wap/telemetry/register';
import { runService } from '@wap/service';
import { definition } from './service.js';

void runService(definition);
