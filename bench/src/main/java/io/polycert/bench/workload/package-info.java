/**
 * What every benchmark runner shares: the {@link io.polycert.bench.workload.Workload} SPI, one replica's client
 * threads and measurements ({@link io.polycert.bench.workload.ReplicaLoad}), and the contenders by name
 * ({@link io.polycert.bench.workload.Contenders}).
 */
package io.polycert.bench.workload;
