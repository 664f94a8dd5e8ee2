// Closed-form AGPU costs of the rank family (kernels/rank/): written with its kernels.
