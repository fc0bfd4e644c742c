module attributes {lattice.input_names = ["x_coords", "x_features", "x_active"], lattice.input_roles = ["sparse_coords", "sparse_features", "sparse_active"], lattice.ir_version = 2 : i64, lattice.output_names = ["output"], lattice.output_roles = ["tensor"], lattice.schema_digest = "1380f1e819fc0eb1af587202ecec3c14ec2c981d249333c5061f0263f82072ad", lattice.weight_file = "weights.safetensors"} {
  func.func @forward(%arg0: tensor<?x4xi32>, %arg1: tensor<?x3xf32>, %arg2: tensor<1xi32>) -> tensor<?x2xf32> {
    %0 = lattice.sparse.make %arg0, %arg1, %arg2 {coord_order = #lattice.coord<batch_x_y_z>, stride = array<i64: 1, 1, 1>} : (tensor<?x4xi32>, tensor<?x3xf32>, tensor<1xi32>) -> !lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>
    %1 = lattice.weight @stem_weight {layout = #lattice.weight_layout<conv3d_o_xyz_i>, packing = #lattice.packing<dense>, storage_key = "stem.weight"} : <conv3d, f32>
    %2 = lattice.weight @stem_bias {layout = #lattice.weight_layout<bias_c>, packing = #lattice.packing<dense>, storage_key = "stem.bias"} : <bias, f32>
    %3 = lattice.conv3d %0, %1, %2 {accumulation = "canonical_f32", dilation = array<i64: 1, 1, 1>, kernel_size = array<i64: 1, 1, 1>, padding = array<i64: 0, 0, 0>, stride = array<i64: 1, 1, 1>} : (!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>, !lattice.weight<conv3d, f32>, !lattice.weight<bias, f32>) -> !lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>
    %coords, %features, %active = lattice.sparse.decompose %3 : <rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32> -> (tensor<?x4xi32>, tensor<?x4xf32>, tensor<1xi32>)
    %4 = lattice.weight @norm_weight {layout = #lattice.weight_layout<channel_c>, packing = #lattice.packing<dense>, storage_key = "norm.weight"} : <channel, f32>
    %5 = lattice.weight @norm_bias {layout = #lattice.weight_layout<bias_c>, packing = #lattice.packing<dense>, storage_key = "norm.bias"} : <bias, f32>
    %6 = lattice.weight @norm_running_mean {layout = #lattice.weight_layout<channel_c>, packing = #lattice.packing<dense>, storage_key = "norm.running_mean"} : <channel, f32>
    %7 = lattice.weight @norm_running_var {layout = #lattice.weight_layout<channel_c>, packing = #lattice.packing<dense>, storage_key = "norm.running_var"} : <channel, f32>
    %8 = lattice.batch_norm %features, %4, %5, %6, %7 {eps = 9.99999974E-6 : f32} : (tensor<?x4xf32>, !lattice.weight<channel, f32>, !lattice.weight<bias, f32>, !lattice.weight<channel, f32>, !lattice.weight<channel, f32>) -> tensor<?x4xf32>
    %9 = lattice.sparse.with_features %3, %8 : (!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>, tensor<?x4xf32>) -> !lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>
    %coords_0, %features_1, %active_2 = lattice.sparse.decompose %9 : <rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32> -> (tensor<?x4xi32>, tensor<?x4xf32>, tensor<1xi32>)
    %10 = lattice.activation %features_1 {alpha = 0.00999999977 : f32, approximate = #lattice.gelu_approx<none>, beta = 1.000000e+00 : f32, kind = #lattice.activation<relu>, threshold = 2.000000e+01 : f32} : (tensor<?x4xf32>) -> tensor<?x4xf32>
    %11 = lattice.sparse.with_features %9, %10 : (!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>, tensor<?x4xf32>) -> !lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>
    %12 = lattice.pool3d %11 {dilation = array<i64: 1, 1, 1>, kernel_size = array<i64: 1, 1, 1>, mode = #lattice.pool_mode<avg>, padding = array<i64: 0, 0, 0>, stride = array<i64: 1, 1, 1>} : (!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>) -> !lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>
    %13 = lattice.global_pool %12 {batch_size = 2 : i64, mode = #lattice.pool_mode<avg>} : (!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f32>) -> tensor<?x4xf32>
    %14 = lattice.weight @head_weight {layout = #lattice.weight_layout<linear_o_i>, packing = #lattice.packing<dense>, storage_key = "head.weight"} : <linear, f32>
    %15 = lattice.weight @head_bias {layout = #lattice.weight_layout<bias_c>, packing = #lattice.packing<dense>, storage_key = "head.bias"} : <bias, f32>
    %16 = lattice.linear %13, %14, %15 : (tensor<?x4xf32>, !lattice.weight<linear, f32>, !lattice.weight<bias, f32>) -> tensor<?x2xf32>
    return %16 : tensor<?x2xf32>
  }
}

