// Public face of the module mechanism: what a module is and the lifecycle that runs a list of them.
export { defineModule, type Module, type Started, type Use } from './module.js';
export { startModules, type Running } from './lifecycle.js';
