const { checkLifecycle } = await import("./compat/lifecycle.mjs");
for (const r of process.argv.slice(2)) {
  const s = Date.now();
  const res = await checkLifecycle("/work/main/dist", `/tmp/real/${r}`);
  console.log(r, ((Date.now() - s) / 1000).toFixed(0) + "s", JSON.stringify(res));
}
