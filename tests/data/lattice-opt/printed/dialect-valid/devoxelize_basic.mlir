module attributes {lattice.input_names = ["input0", "input1", "input2", "input3", "input4", "input5"], lattice.input_roles = ["tensor", "tensor", "tensor", "tensor", "tensor", "tensor"], lattice.ir_version = 2 : i64, lattice.output_names = ["output0"], lattice.output_roles = ["tensor"], lattice.schema_digest = "1380f1e819fc0eb1af587202ecec3c14ec2c981d249333c5061f0263f82072ad", lattice.weight_file = "weights.safetensors"} {
  func.func @forward(%arg0: tensor<?x3xf32>, %arg1: tensor<?x4xi32>, %arg2: tensor<?x16xf32>, %arg3: tensor<1xi32>, %arg4: tensor<?xi32>, %arg5: tensor<1xi32>) -> tensor<?x16xf32> {
    %0 = lattice.sparse.make %arg1, %arg2, %arg3 {coord_order = #lattice.coord<batch_x_y_z>, stride = array<i64: 1, 1, 1>} : (tensor<?x4xi32>, tensor<?x16xf32>, tensor<1xi32>) -> !lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>
    %1 = lattice.devoxelize %arg0, %0, %arg4, %arg5 {interpolation = #lattice.point_interpolation<linear>, origin = array<f64: 0.000000e+00, 0.000000e+00, 0.000000e+00>, voxel_size = array<f64: 1.000000e-01, 1.000000e-01, 1.000000e-01>} : (tensor<?x3xf32>, !lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>, tensor<?xi32>, tensor<1xi32>) -> tensor<?x16xf32>
    return %1 : tensor<?x16xf32>
  }
}

