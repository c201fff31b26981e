// Preloaded with `node --require` by the live tests:
// - a server that calls listen(port) with no host binds 127.0.0.1 only, never every
//   interface (server-everything's HTTP mode does);
// - with TOOLCAT_PORT_FILE set, the port it listens on is written there (PORT=0 picks any
//   free port).
"use strict";
const fs = require("fs");
const net = require("net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const file = process.env.TOOLCAT_PORT_FILE;
  if (file) {
    this.once("listening", () => {
      fs.writeFileSync(file + ".tmp", String(this.address().port));
      fs.renameSync(file + ".tmp", file);
    });
  }
  if (typeof args[0] === "number" || (typeof args[0] === "string" && /^\d+$/.test(args[0]))) {
    const rest = args.slice(1);
    if (typeof rest[0] !== "string") return listen.call(this, Number(args[0]), "127.0.0.1", ...rest);
  } else if (args[0] && typeof args[0] === "object" && !args[0].path && !args[0].host) {
    return listen.call(this, { ...args[0], host: "127.0.0.1" }, ...args.slice(1));
  }
  return listen.apply(this, args);
};
