// Every management command of the service (every module's), as a node applies them.
import { MODULES } from '../../src/main.js';
import { writeCommandsOf } from '../../src/modules/index.js';
import type { Store } from '../../src/tables.js';

export const COMMANDS = await writeCommandsOf<Store>(MODULES);
