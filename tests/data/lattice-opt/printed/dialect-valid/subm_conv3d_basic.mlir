module attributes {lattice.input_names = ["input0", "input1", "input2"], lattice.input_roles = ["tensor", "tensor", "tensor"], lattice.ir_version = 2 : i64, lattice.output_names = ["output0"], lattice.output_roles = ["tensor"], lattice.schema_digest = "1380f1e819fc0eb1af587202ecec3c14ec2c981d249333c5061f0263f82072ad", lattice.weight_file = "weights.safetensors"} {
  func.func @forward(%arg0: tensor<?x4xi32>, %arg1: tensor<?x32xf16>, %arg2: tensor<1xi32>) -> !lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f16> {
    %0 = lattice.sparse.make %arg0, %arg1, %arg2 {coord_order = #lattice.coord<batch_x_y_z>, stride = array<i64: 1, 1, 1>} : (tensor<?x4xi32>, tensor<?x32xf16>, tensor<1xi32>) -> !lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f16>
    %1 = lattice.weight @block.subm.weight {layout = #lattice.weight_layout<conv3d_o_xyz_i>, packing = #lattice.packing<dense>, storage_key = "block.subm.weight"} : <conv3d, f16>
    %2 = lattice.subm_conv3d %0, %1 {accumulation = "canonical_f32", dilation = array<i64: 1, 1, 1>, kernel_size = array<i64: 3, 3, 3>} : (!lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f16>, !lattice.weight<conv3d, f16>) -> !lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f16>
    return %2 : !lattice.sparse_tensor<rank = 3, coord = batch_x_y_z, feature = row_channel, dtype = f16>
  }
}

