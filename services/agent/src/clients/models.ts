// The models runs may name: the embedded one (when its file is configured)
// and the configured endpoints. A client is built once per name and shared by
// every run of the replica.
import type { AgentConfig, ModelEndpoint } from '../config.js';
import { AnthropicClient } from '../model/anthropic.js';
import { EmbeddedModelClient } from '../model/embedded.js';
import { OpenAiCompatibleClient } from '../model/openai.js';
import type { ModelClient } from '../model/types.js';

export class ModelRegistry {
  private readonly clients = new Map<string, ModelClient>();

  constructor(
    private readonly config: Pick<
      AgentConfig,
      'AGENT_MODELS' | 'EMBEDDED_MODEL_PATH' | 'EMBEDDED_MODEL_THREADS' | 'EMBEDDED_MODEL_PROFILE'
    >,
    /** Tests put a model of their own under a name. */
    private readonly extra: ModelClient[] = [],
  ) {}

  names(): string[] {
    return [
      ...(this.config.EMBEDDED_MODEL_PATH ? ['embedded'] : []),
      ...this.config.AGENT_MODELS.map((m) => m.name),
      ...this.extra.map((m) => m.name),
    ];
  }

  get(name: string): ModelClient | undefined {
    const made = this.clients.get(name);
    if (made) return made;
    const client = this.build(name);
    if (client) this.clients.set(name, client);
    return client;
  }

  private build(name: string): ModelClient | undefined {
    const extra = this.extra.find((m) => m.name === name);
    if (extra) return extra;
    if (name === 'embedded' && this.config.EMBEDDED_MODEL_PATH)
      return new EmbeddedModelClient({
        modelPath: this.config.EMBEDDED_MODEL_PATH,
        profile: this.config.EMBEDDED_MODEL_PROFILE,
        ...(this.config.EMBEDDED_MODEL_THREADS > 0 && { threads: this.config.EMBEDDED_MODEL_THREADS }),
      });
    const endpoint = this.config.AGENT_MODELS.find((m) => m.name === name);
    return endpoint && endpointClient(endpoint);
  }

  async close(): Promise<void> {
    await Promise.all([...this.clients.values()].map((c) => c.close?.().catch(() => undefined)));
  }
}

function endpointClient(e: ModelEndpoint): ModelClient {
  if (e.kind === 'anthropic')
    return new AnthropicClient({
      name: e.name,
      baseUrl: e.baseUrl,
      model: e.model,
      vision: e.vision,
      profile: e.profile,
      ...(e.apiKey && { apiKey: e.apiKey }),
    });
  return new OpenAiCompatibleClient({
    name: e.name,
    baseUrl: e.baseUrl,
    model: e.model,
    vision: e.vision,
    profile: e.profile,
    mode: e.mode,
    ...(e.apiKey && { apiKey: e.apiKey }),
  });
}
