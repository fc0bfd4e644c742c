module attributes {lattice.input_names = ["input0", "input1", "input2"], lattice.input_roles = ["tensor", "tensor", "tensor"], lattice.ir_version = 2 : i64, lattice.output_names = ["output0"], lattice.output_roles = ["tensor"], lattice.schema_digest = "1380f1e819fc0eb1af587202ecec3c14ec2c981d249333c5061f0263f82072ad", lattice.weight_file = "weights.safetensors"} {
  func.func @forward(%arg0: tensor<?x4xi32>, %arg1: tensor<?x32xf32>, %arg2: tensor<1xi32>) -> tensor<?x32xf32> {
    %0 = lattice.sparse.make %arg0, %arg1, %arg2 {coord_order = #lattice.coord<batch_x_y_z>, stride = array<i64: 1, 1, 1>} : (tensor<?x4xi32>, tensor<?x32xf32>, tensor<1xi32>) -> !lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>
    %1 = lattice.global_pool %0 {batch_size = 2 : i64, mode = #lattice.pool_mode<sum>} : (!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>) -> tensor<?x32xf32>
    return %1 : tensor<?x32xf32>
  }
}

