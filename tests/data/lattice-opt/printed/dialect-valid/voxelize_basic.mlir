module attributes {lattice.input_names = ["input0", "input1", "input2", "input3"], lattice.input_roles = ["tensor", "tensor", "tensor", "tensor"], lattice.ir_version = 2 : i64, lattice.output_names = ["output0"], lattice.output_roles = ["tensor"], lattice.schema_digest = "1380f1e819fc0eb1af587202ecec3c14ec2c981d249333c5061f0263f82072ad", lattice.weight_file = "weights.safetensors"} {
  func.func @forward(%arg0: tensor<?x3xf32>, %arg1: tensor<?x16xf32>, %arg2: tensor<?xi32>, %arg3: tensor<1xi32>) -> !lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32> {
    %0 = lattice.voxelize %arg0, %arg1, %arg2, %arg3 {origin = array<f64: 0.000000e+00, 0.000000e+00, 0.000000e+00>, reduction = #lattice.voxel_reduction<mean>, stride = array<i64: 1, 1, 1>, voxel_size = array<f64: 1.000000e-01, 1.000000e-01, 1.000000e-01>} : (tensor<?x3xf32>, tensor<?x16xf32>, tensor<?xi32>, tensor<1xi32>) -> !lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>
    return %0 : !lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>
  }
}

