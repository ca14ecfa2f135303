// Runs before each test file (jest setupFiles): the file's service, database and broker clients use its worker's
// own database, exchange and queue (the run's names with _w<JEST_WORKER_ID> / .w<JEST_WORKER_ID>), so suites running
// at the same time in other workers never see each other's tickets, events or tables. Each test file starts from a
// fresh copy of the run's process.env, so this is set anew for every file. global-teardown.ts removes them all.
const worker = process.env.JEST_WORKER_ID!;
process.env.DB_DATABASE = `${process.env.DB_DATABASE}_w${worker}`;
process.env.RABBITMQ_EXCHANGE = `${process.env.RABBITMQ_EXCHANGE}.w${worker}`;
process.env.RABBITMQ_QUEUE = `${process.env.RABBITMQ_QUEUE}.w${worker}`;
