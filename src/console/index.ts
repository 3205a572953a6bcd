export { createConsole } from './app.js';
