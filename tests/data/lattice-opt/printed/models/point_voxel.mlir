module attributes {lattice.input_names = ["points", "features", "batch_indices", "active_rows"], lattice.input_roles = ["tensor", "tensor", "tensor", "tensor"], lattice.ir_version = 2 : i64, lattice.output_names = ["output"], lattice.output_roles = ["tensor"], lattice.schema_digest = "1380f1e819fc0eb1af587202ecec3c14ec2c981d249333c5061f0263f82072ad", lattice.weight_file = "weights.safetensors"} {
  func.func @forward(%arg0: tensor<?x3xf32>, %arg1: tensor<?x2xf32>, %arg2: tensor<?xi32>, %arg3: tensor<1xi32>) -> tensor<?x2xf32> {
    %0 = lattice.voxelize %arg0, %arg1, %arg2, %arg3 {origin = array<f64: 0.000000e+00, 0.000000e+00, 0.000000e+00>, reduction = #lattice.voxel_reduction<mean>, stride = array<i64: 1, 1, 1>, voxel_size = array<f64: 1.000000e+00, 1.000000e+00, 1.000000e+00>} : (tensor<?x3xf32>, tensor<?x2xf32>, tensor<?xi32>, tensor<1xi32>) -> !lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>
    %1 = lattice.devoxelize %arg0, %0, %arg2, %arg3 {interpolation = #lattice.point_interpolation<nearest>, origin = array<f64: 0.000000e+00, 0.000000e+00, 0.000000e+00>, voxel_size = array<f64: 1.000000e+00, 1.000000e+00, 1.000000e+00>} : (tensor<?x3xf32>, !lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>, tensor<?xi32>, tensor<1xi32>) -> tensor<?x2xf32>
    return %1 : tensor<?x2xf32>
  }
}

