// The Hog AST as @posthog/hogql-parser emits it (JSON, PostHog's node names and field
// names), plus the float marker the parser module adds. Filters build the same shapes
// in code, so one compiler serves programs, templates and filters.

export interface Position {
  line: number;
  column: number;
  offset: number;
}

interface Base {
  start?: Position;
  end?: Position;
}

/** A float literal whose value is integral (`1.0`): kept apart so it compiles to FLOAT. */
export interface FloatValue {
  $float: number;
}

export type ConstantValue = string | number | boolean | null | FloatValue;

export interface Constant extends Base { node: 'Constant'; value: ConstantValue; value_type?: string }
export interface Field extends Base { node: 'Field'; chain: (string | number)[] }
export interface ArrayAccess extends Base { node: 'ArrayAccess'; array: Expr; property: Expr; nullish?: boolean }
export interface TupleAccess extends Base { node: 'TupleAccess'; tuple: Expr; index: number; nullish?: boolean }
export interface Call extends Base { node: 'Call'; name: string; args: Expr[]; params?: Expr[] | null }
export interface ExprCall extends Base { node: 'ExprCall'; expr: Expr; args: Expr[] }
export interface ArithmeticOperation extends Base { node: 'ArithmeticOperation'; left: Expr; right: Expr; op: string }
export interface CompareOperation extends Base { node: 'CompareOperation'; left: Expr; right: Expr; op: string }
export interface And extends Base { node: 'And'; exprs: Expr[] }
export interface Or extends Base { node: 'Or'; exprs: Expr[] }
export interface Not extends Base { node: 'Not'; expr: Expr }
export interface BetweenExpr extends Base { node: 'BetweenExpr'; expr: Expr; low: Expr; high: Expr; negated?: boolean }
export interface Dict extends Base { node: 'Dict'; items: [Expr, Expr][] }
export interface ArrayNode extends Base { node: 'Array'; exprs: Expr[] }
export interface Tuple extends Base { node: 'Tuple'; exprs: Expr[] }
export interface Lambda extends Base { node: 'Lambda'; args: string[]; expr: Expr | Statement }
export interface Placeholder extends Base { node: 'Placeholder'; expr: Expr }
export interface HogQLXAttribute extends Base { node: 'HogQLXAttribute'; name: string; value: Expr | Expr[] }
export interface HogQLXTag extends Base { node: 'HogQLXTag'; kind: string; attributes: HogQLXAttribute[] }
/** Any node the compiler has no rule for (SelectQuery, TypeCast, ...): refused or passed to sql(). */
export interface OtherNode extends Base { node: string; [field: string]: unknown }

export type Expr =
  | Constant | Field | ArrayAccess | TupleAccess | Call | ExprCall | ArithmeticOperation | CompareOperation
  | And | Or | Not | BetweenExpr | Dict | ArrayNode | Tuple | Lambda | Placeholder | HogQLXTag;

export interface Program extends Base { node: 'Program'; declarations: Statement[] }
export interface Block extends Base { node: 'Block'; declarations: Statement[] }
export interface ExprStatement extends Base { node: 'ExprStatement'; expr: Expr | null }
export interface ReturnStatement extends Base { node: 'ReturnStatement'; expr: Expr | null }
export interface ThrowStatement extends Base { node: 'ThrowStatement'; expr: Expr }
export interface IfStatement extends Base { node: 'IfStatement'; expr: Expr; then: Statement; else_: Statement | null }
export interface WhileStatement extends Base { node: 'WhileStatement'; expr: Expr; body: Statement }
export interface ForStatement extends Base {
  node: 'ForStatement';
  initializer: Statement | Expr | null;
  condition: Expr | null;
  increment: Statement | Expr | null;
  body: Statement;
}
export interface ForInStatement extends Base {
  node: 'ForInStatement'; keyVar: string | null; valueVar: string; expr: Expr; body: Statement;
}
export interface VariableDeclaration extends Base { node: 'VariableDeclaration'; name: string; expr: Expr | null }
export interface VariableAssignment extends Base { node: 'VariableAssignment'; left: Expr; right: Expr }
export interface FunctionNode extends Base { node: 'Function'; name: string; params: string[]; body: Statement }
export interface TryCatchStatement extends Base {
  node: 'TryCatchStatement';
  try_stmt: Statement;
  catches: [string | null, string | null, Statement][];
  finally_stmt: Statement | null;
}

export type Statement =
  | Program | Block | ExprStatement | ReturnStatement | ThrowStatement | IfStatement | WhileStatement
  | ForStatement | ForInStatement | VariableDeclaration | VariableAssignment | FunctionNode | TryCatchStatement;

export type Node = Expr | Statement | OtherNode;

// Constructors for the nodes the compiler and the filters synthesise.
export const constant = (value: ConstantValue): Constant => ({ node: 'Constant', value });
export const field = (...chain: (string | number)[]): Field => ({ node: 'Field', chain });
export const call = (name: string, ...args: Expr[]): Call => ({ node: 'Call', name, args });
export const compare = (op: string, left: Expr, right: Expr): CompareOperation =>
  ({ node: 'CompareOperation', op, left, right });
export const and = (exprs: Expr[]): And => ({ node: 'And', exprs });
export const or = (exprs: Expr[]): Or => ({ node: 'Or', exprs });
export const not = (expr: Expr): Not => ({ node: 'Not', expr });
export const array = (exprs: Expr[]): ArrayNode => ({ node: 'Array', exprs });
export const tuple = (exprs: Expr[]): Tuple => ({ node: 'Tuple', exprs });
export const lambda = (args: string[], expr: Expr): Lambda => ({ node: 'Lambda', args, expr });
