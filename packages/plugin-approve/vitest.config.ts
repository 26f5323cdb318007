import { switchyardProject } from '../../vitest.shared.js';

export default switchyardProject();
