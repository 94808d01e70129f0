// The fifth gate audit's cases (ordinary fixes): each was rejected with a shared-state finding.
import type { Case } from './case.ts'
const j = (name: string, before: string, edits: Array<[string, string]>, expect?: 'pass' | 'rej'): Case => ({ name, runner: 'node', path: 'src/calc.js', before, edits, expect })
const g = (name: string, before: string, edits: Array<[string, string]>, expect?: 'pass' | 'rej'): Case => ({ name, runner: 'go', path: 'calc.go', before, edits, expect })
export const GOW = 'package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n\n// Double returns twice n.\nfunc Double(n int) int {\n\treturn n * 2\n}\n\nfunc matches(got, want int) bool {\n\treturn got == want\n}\n'
export const CASES: Case[] = [
  j('fp-js-new-url-imported-base', "import { BASE_URL } from './config.js'\n\n// endpoint returns the URL of path on the API, without a query.\nexport function endpoint (path) {\n  const u = new URL(path, BASE_URL)\n  return u.href\n}\n", [['  return u.href\n', "  u.search = ''\n  return u.href\n"]]),
  j('fp-js-object-assign-env', "// childEnv returns the environment for a child process.\nexport function childEnv (extra) {\n  const env = Object.assign({}, process.env, extra)\n  return env\n}\n", [['  return env\n', "  env.LANG = 'C'\n  return env\n"]]),
  j('fp-js-merge-defaults', "import { DEFAULTS } from './defaults.js'\n\n// options merges the caller's options over the defaults.\nexport function options (opts) {\n  const out = Object.assign({}, DEFAULTS, opts)\n  return out\n}\n", [['  return out\n', '  out.retries ??= 3\n  return out\n']]),
  g('fp-go-url-parse-other-file-const', 'package api\n\nimport "net/url"\n\n// Endpoint returns the API URL, without a query.\nfunc Endpoint() string {\n\tu, _ := url.Parse(baseURL)\n\treturn u.String()\n}\n', [['\treturn u.String()\n', '\tu.RawQuery = ""\n\treturn u.String()\n']]),
  g('fp-go-new-request-close', 'package api\n\nimport "net/http"\n\n// Get builds a GET request for url.\nfunc Get(url string) (*http.Request, error) {\n\treq, err := http.NewRequest(http.MethodGet, url, nil)\n\treturn req, err\n}\n', [['\treturn req, err\n', '\tif err == nil {\n\t\treq.Close = true\n\t}\n\treturn req, err\n']]),
  g('fp-go-exec-cmd-dir', 'package tool\n\nimport "os/exec"\n\n// Status runs git status in dir.\nfunc Status(dir string) ([]byte, error) {\n\tcmd := exec.Command(gitPath, "status")\n\treturn cmd.Output()\n}\n', [['\treturn cmd.Output()\n', '\tcmd.Dir = dir\n\treturn cmd.Output()\n']]),
]
