// Generated protobuf-es code for every contract under proto/ (see `make generate`).
export * as health from './gen/grpc/health/v1/health_pb.js';
export * as agent from './gen/wap/agent/v1/agent_pb.js';
export * as extract from './gen/wap/agent/v1/extract_pb.js';
export * as integrations from './gen/wap/agent/v1/integrations_pb.js';
export * as rules from './gen/wap/agent/v1/rules_pb.js';
export * as secrets from './gen/wap/agent/v1/secrets_pb.js';
export * as ledger from './gen/wap/billing/v1/ledger_pb.js';
export * as browser from './gen/wap/browser/v1/browser_pb.js';
export * as crawl from './gen/wap/crawl/v1/crawl_pb.js';
export * as monitor from './gen/wap/monitor/v1/monitor_pb.js';
export * as sessions from './gen/wap/sessions/v1/sessions_pb.js';
