// declarations-preserved: the multiset of declarations at every scope is unchanged, each as
// `(enclosing function or type, kind, name)`. Names only: an initializer may change.
//   go: functions, methods (with receiver type), types, struct fields and interface methods,
//       var and const names, `:=` names (type-switch and select bindings included), range
//       variables, labels;
//   JavaScript: function and class declarations (and named function/class expressions),
//       every name bound by var/let/const (destructuring and for-in/of heads included),
//       class members, catch bindings.

import { checkStructure } from '../syntax/compare.ts'
import { descendants, field, fields, textOf, tokensOf, type SyntaxNode, type SyntaxTree } from '../syntax/parse.ts'
import { receiverType, scopeOf, showScope } from '../syntax/scope.ts'
import type { GateContext, RuleOutcome } from '../types.ts'

const SEP = '\u0000'

/** Every declaration of a file as `scope NUL kind NUL name`. */
export function declarationsOf (tree: SyntaxTree): string[] {
  const out: string[] = []
  const add = (at: SyntaxNode, kind: string, name: string): void => { out.push([scopeOf(tree, at), kind, name].join(SEP)) }
  const idsOf = (list: SyntaxNode | undefined): string[] => list === undefined
    ? []
    : list.type === 'identifier' ? [textOf(tree, list)] : list.children.filter(c => c.type === 'identifier').map(c => textOf(tree, c))
  const hasToken = (n: SyntaxNode, tok: string): boolean => n.children.some(c => !c.named && textOf(tree, c) === tok)
  for (const n of descendants(tree.root)) {
    if (tree.grammar === 'go') {
      switch (n.type) {
        case 'function_declaration': add(n, 'func', text(tree, field(n, 'name'))); break
        case 'method_declaration': add(n, 'method', `(${receiverType(tree, n)}).${text(tree, field(n, 'name'))}`); break
        case 'type_spec':
        case 'type_alias': add(n, 'type', text(tree, field(n, 'name'))); break
        case 'field_declaration': {
          const names = fields(n, 'name')
          if (names.length === 0) add(n, 'embedded field', tokensOf(tree, field(n, 'type') ?? n, ''))
          for (const id of names) add(n, 'field', textOf(tree, id))
          break
        }
        case 'method_elem':
        case 'method_spec': add(n, 'interface method', text(tree, field(n, 'name'))); break
        case 'var_spec': for (const id of fields(n, 'name')) add(n, 'var', textOf(tree, id)); break
        case 'const_spec': for (const id of fields(n, 'name')) add(n, 'const', textOf(tree, id)); break
        case 'short_var_declaration': for (const id of idsOf(field(n, 'left'))) add(n, ':=', id); break
        case 'range_clause': if (hasToken(n, ':=')) for (const id of idsOf(field(n, 'left'))) add(n, 'range', id); break
        case 'receive_statement': if (hasToken(n, ':=')) for (const id of idsOf(field(n, 'left'))) add(n, ':=', id); break
        case 'type_switch_statement': for (const id of idsOf(field(n, 'alias'))) add(n, 'switch :=', id); break
        case 'labeled_statement': add(n, 'label', text(tree, field(n, 'label'))); break
      }
      continue
    }
    switch (n.type) {
      case 'function_declaration':
      case 'generator_function_declaration': add(n, 'function', text(tree, field(n, 'name'))); break
      case 'function_expression':
      case 'generator_function': { const name = field(n, 'name'); if (name !== undefined) add(n, 'function expression', textOf(tree, name)); break }
      case 'class_declaration': add(n, 'class', text(tree, field(n, 'name'))); break
      case 'class': { const name = field(n, 'name'); if (name !== undefined) add(n, 'class expression', textOf(tree, name)); break }
      case 'lexical_declaration':
      case 'variable_declaration': {
        const kind = n.type === 'variable_declaration' ? 'var' : textOf(tree, n.children[0] ?? n)
        for (const d of n.children.filter(c => c.type === 'variable_declarator')) for (const id of patternNames(tree, field(d, 'name'))) add(n, kind, id)
        break
      }
      case 'for_in_statement': {
        const kind = n.children.find(c => !c.named && ['var', 'let', 'const'].includes(textOf(tree, c)))
        if (kind !== undefined) for (const id of patternNames(tree, field(n, 'left'))) add(n, textOf(tree, kind), id)
        break
      }
      case 'method_definition': add(n, memberKind(tree, n, 'method'), tokensOf(tree, field(n, 'name') ?? n, '')); break
      case 'field_definition': add(n, memberKind(tree, n, 'field'), tokensOf(tree, field(n, 'property') ?? n, '')); break
      case 'catch_clause': for (const id of patternNames(tree, field(n, 'parameter'))) add(n, 'catch', id); break
    }
  }
  return out
}

function text (tree: SyntaxTree, n: SyntaxNode | undefined): string {
  return n === undefined ? '?' : textOf(tree, n)
}

/** `static get`, `async method`, …: the modifiers a class member is declared with. */
function memberKind (tree: SyntaxTree, n: SyntaxNode, base: string): string {
  const mods = n.children.filter(c => !c.named && ['static', 'get', 'set', 'async', '*'].includes(textOf(tree, c))).map(c => textOf(tree, c))
  return [...mods, base].join(' ')
}

/** Every name a JavaScript binding pattern binds. */
export function patternNames (tree: SyntaxTree, p: SyntaxNode | undefined): string[] {
  if (p === undefined) return []
  switch (p.type) {
    case 'identifier':
    case 'shorthand_property_identifier_pattern':
      return [textOf(tree, p)]
    case 'object_pattern':
    case 'array_pattern':
    case 'rest_pattern':
      return p.children.filter(c => c.named).flatMap(c => patternNames(tree, c))
    case 'pair_pattern': return patternNames(tree, field(p, 'value'))
    case 'assignment_pattern':
    case 'object_assignment_pattern':
      return patternNames(tree, field(p, 'left'))
    default: return []
  }
}

export function showDeclaration (e: string): string {
  const [scope = '', kind = '', name = ''] = e.split(SEP)
  return `declaration (${showScope(scope)}, ${kind}, ${name})`
}

export function checkDeclarationsPreserved (ctx: GateContext): RuleOutcome {
  return checkStructure(ctx, { what: 'declarations', extract: declarationsOf, direction: 'both', show: showDeclaration })
}
