// Runs a person opened by id, remembered in this browser per workspace: there is no route that
// lists a workspace's runs, so the console keeps the ones it was shown.

const MAX = 50;
const keyOf = (workspaceId: string) => `console.runs.${workspaceId}`;

export function openedRuns(workspaceId: string): string[] {
  try {
    const ids = JSON.parse(localStorage.getItem(keyOf(workspaceId)) ?? '[]') as unknown;
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}

export function rememberRun(workspaceId: string, runId: string): void {
  const ids = [runId, ...openedRuns(workspaceId).filter((id) => id !== runId)].slice(0, MAX);
  try {
    localStorage.setItem(keyOf(workspaceId), JSON.stringify(ids));
  } catch {
    // Storage full or refused (private mode): the list is a convenience.
  }
}
