#!/usr/bin/env node
// Checks a running referee with stock gRPC services, as grpcurl or a
// Kubernetes probe would: the health check (grpc.health.v1.Health/Check) and
// server reflection (grpc.reflection.v1alpha: list the services). Prints
// what it found; exits 0 if the health check answers SERVING and reflection
// lists arena.v1.Referee, else 1.
//
//   node bots/node/probe.js 127.0.0.1:50051      (or unix:/path/to/socket)
'use strict';
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const address = process.argv[2];
if (!address) {
  console.error('usage: probe.js ADDRESS');
  process.exit(2);
}
const opts = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };
const healthProto = path.join(path.dirname(require.resolve('grpc-health-check/package.json')),
                              'proto', 'health', 'v1', 'health.proto');
const reflectionProto = path.join(path.dirname(require.resolve('@grpc/reflection/package.json')),
                                  'build', 'proto', 'grpc', 'reflection', 'v1alpha', 'reflection.proto');
const health = grpc.loadPackageDefinition(protoLoader.loadSync(healthProto, opts)).grpc.health.v1;
const reflection = grpc.loadPackageDefinition(protoLoader.loadSync(reflectionProto, opts)).grpc.reflection.v1alpha;
const deadline = () => new Date(Date.now() + 10000);

function check(service) {
  return new Promise((resolve, reject) => {
    new health.Health(address, grpc.credentials.createInsecure())
      .Check({ service }, { deadline: deadline() }, (err, res) => (err ? reject(err) : resolve(res.status)));
  });
}

function listServices() {
  return new Promise((resolve, reject) => {
    const client = new reflection.ServerReflection(address, grpc.credentials.createInsecure());
    const call = client.ServerReflectionInfo({ deadline: deadline() });
    call.on('data', (res) => {
      if (res.message_response === 'list_services_response') {
        resolve(res.list_services_response.service.map((s) => s.name));
      } else {
        reject(new Error(`unexpected reflection answer ${res.message_response}`));
      }
      call.end();
    });
    call.on('error', reject);
    call.write({ list_services: '' });
  });
}

(async () => {
  let ok = true;
  try {
    const overall = await check('');
    console.log(`health "": ${overall}`);
    ok = ok && overall === 'SERVING';
    const referee = await check('arena.v1.Referee');
    console.log(`health "arena.v1.Referee": ${referee}`);
    ok = ok && referee === 'SERVING';
  } catch (e) {
    console.log(`health check failed: ${e.message}`);
    ok = false;
  }
  try {
    const services = await listServices();
    console.log(`reflection lists: ${services.join(', ')}`);
    ok = ok && services.includes('arena.v1.Referee');
  } catch (e) {
    console.log(`reflection failed: ${e.message}`);
    ok = false;
  }
  process.exit(ok ? 0 : 1);
})();
