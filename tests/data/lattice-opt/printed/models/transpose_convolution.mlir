module attributes {lattice.input_names = ["x_coords", "x_features", "x_active"], lattice.input_roles = ["sparse_coords", "sparse_features", "sparse_active"], lattice.ir_version = 2 : i64, lattice.output_names = ["output"], lattice.output_roles = ["sparse_tensor"], lattice.schema_digest = "1380f1e819fc0eb1af587202ecec3c14ec2c981d249333c5061f0263f82072ad", lattice.weight_file = "weights.safetensors"} {
  func.func @forward(%arg0: tensor<?x4xi32>, %arg1: tensor<?x2xf32>, %arg2: tensor<1xi32>) -> !lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32> {
    %0 = lattice.sparse.make %arg0, %arg1, %arg2 {coord_order = #lattice.coord<batch_x_y_z>, stride = array<i64: 1, 1, 1>} : (tensor<?x4xi32>, tensor<?x2xf32>, tensor<1xi32>) -> !lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>
    %1 = lattice.weight @down_weight {layout = #lattice.weight_layout<conv3d_o_xyz_i>, packing = #lattice.packing<dense>, storage_key = "down.weight"} : <conv3d, f32>
    %2 = lattice.conv3d %0, %1 {accumulation = "canonical_f32", dilation = array<i64: 1, 1, 1>, kernel_size = array<i64: 2, 1, 1>, padding = array<i64: 0, 0, 0>, stride = array<i64: 2, 1, 1>} : (!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>, !lattice.weight<conv3d, f32>) -> !lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>
    %3 = lattice.weight @up_weight {layout = #lattice.weight_layout<conv3d_o_xyz_i>, packing = #lattice.packing<dense>, storage_key = "up.weight"} : <conv3d, f32>
    %4 = lattice.weight @up_bias {layout = #lattice.weight_layout<bias_c>, packing = #lattice.packing<dense>, storage_key = "up.bias"} : <bias, f32>
    %5 = lattice.conv_transpose3d %2, %3, %4 {accumulation = "canonical_f32", dilation = array<i64: 1, 1, 1>, kernel_size = array<i64: 2, 1, 1>, padding = array<i64: 0, 0, 0>, stride = array<i64: 2, 1, 1>} : (!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>, !lattice.weight<conv3d, f32>, !lattice.weight<bias, f32>) -> !lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>
    return %5 : !lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>
  }
}

