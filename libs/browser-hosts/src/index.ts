export { type BrowserClient, BrowserHosts, openOnHosts } from './browser-hosts.js';
