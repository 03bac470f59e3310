console.log(`node ${process.version}`);
