/** A setting the operator must fix; the command line reports it and exits 2 (cli/command.ts). */
export class ConfigError extends Error {
  constructor(setting: string, problem: string) {
    super(`Invalid configuration: ${setting} ${problem}`);
    this.name = 'ConfigError';
  }
}
