// Scripted stand-ins for two model APIs, on loopback, in their real wire
// formats: OpenAI's `POST /v1/chat/completions` (JSON or SSE chunks) and
// Anthropic's `POST /v1/messages`. A test scripts the answers; each fake
// records every request and refuses, with the provider's status and error
// body, what the real API refuses: no key or a wrong one, a missing model,
// messages or max_tokens, a malformed message, image or tool, a strict
// schema that is not strict.
export { startFakeAnthropic } from './model-fakes/anthropic.js';
export { startFakeOpenAi } from './model-fakes/openai.js';
export { type FakeModel, type FakeModelOptions, type ModelRequest, modelReply } from './model-fakes/scripted.js';
