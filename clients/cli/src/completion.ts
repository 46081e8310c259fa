// Shell completion: `wap completion bash|zsh|fish` prints a script to source; each script asks
// `wap __complete <words...>` for the candidates, so new capabilities complete without a new script.
import { flaggable, GLOBAL_OPTIONS, GROUPS, kebab, methodWords, OWN_COMMANDS, resolveMethod } from './args.js';

const BASH = `# wap completion for bash: eval "$(wap completion bash)"
_wap_complete() {
  local IFS=$'\\n'
  COMPREPLY=($(compgen -W "$(wap __complete "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)" -- "\${COMP_WORDS[COMP_CWORD]}"))
}
complete -o default -F _wap_complete wap
`;

const ZSH = `#compdef wap
# wap completion for zsh: eval "$(wap completion zsh)"
_wap() {
  local -a candidates
  candidates=("\${(@f)$(wap __complete "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  compadd -a candidates
}
compdef _wap wap
`;

const FISH = `# wap completion for fish: wap completion fish | source
complete -c wap -f -a '(wap __complete (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null)'
`;

export const SCRIPTS: Record<string, string> = { bash: BASH, zsh: ZSH, fish: FISH };

/** The candidates for the last word of `words` (the words after `wap`, the one being typed last). */
export function complete(words: string[]): string[] {
  const current = words.at(-1) ?? '';
  const before = words.slice(0, -1);
  const globals = Object.keys(GLOBAL_OPTIONS).map((n) => `--${n}`);
  const positionals = before.filter((w) => !w.startsWith('-'));
  const [group, method] = positionals;
  let candidates: string[];
  if (!group) candidates = current.startsWith('-') ? globals : [...OWN_COMMANDS, ...GROUPS];
  else if (group === 'completion') candidates = Object.keys(SCRIPTS);
  else if (group === 'help') candidates = [...GROUPS];
  else if (!GROUPS.includes(group)) candidates = current.startsWith('-') ? globals : [];
  else {
    const resolved = resolveMethod(group, method);
    const previous = before.at(-1) ?? '';
    const flagged = resolved?.spec.params.find((p) => flaggable(p) && previous.replace(/^--/, '') === kebab(p.name));
    if (flagged?.enum) return flagged.enum.map(String).filter((v) => v.startsWith(current));
    if (current.startsWith('-')) {
      const params = resolved?.helper ? [] : (resolved?.spec.params ?? []).filter(flaggable);
      candidates = [...params.map((p) => `--${kebab(p.name)}`), ...globals];
    } else if (positionals.length === 1) candidates = methodWords(group);
    else candidates = [];
  }
  return candidates.filter((c) => c.startsWith(current));
}
