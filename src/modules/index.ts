// Public face of the module mechanism: what a module is, the lifecycle that runs a list of
// them, and hedgerow's flavour of them (what a domain declares, the node context it starts with).
export { defineModule, type Module, type Started, type Use } from './module.js';
export { startModules, type OnClosed, type Running } from './lifecycle.js';
export { nodeModule, type ClaimHooks, type Consumers, type NodeContext, type NodeModule, type Readiness, type Role } from './node.js';
export { commandsOf, consumersOf, writeCommandsOf } from './declarations.js';
