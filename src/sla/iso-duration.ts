/**
 * Milliseconds as an ISO-8601 duration of hours, minutes and whole seconds, as Jira writes elapsed and remaining
 * times: `PT1H2M`, `PT0S`, and with a leading minus when negative (`-PT5M`, a breached clock's remaining time).
 */
export function formatIsoDuration(ms: number): string {
  const seconds = Math.floor(Math.abs(ms) / 1000);
  const sign = ms < 0 && seconds > 0 ? '-' : '';
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const text = `${h ? `${h}H` : ''}${m ? `${m}M` : ''}${s ? `${s}S` : ''}`;
  return `${sign}PT${text || '0S'}`;
}
