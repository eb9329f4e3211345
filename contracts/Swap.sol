// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title A minimal constant-product AMM (Uniswap V2 style) for the devnet
/// @notice Pair, factory and router with the Uniswap V2 Router02 interface the service
///         calls on real chains (getAmountsOut, swapExactTokensForTokens, factory, WETH),
///         so swaps on the devnet run the same code path through real EVM execution.
///         Written for this project; deliberately small: no LP token transfers, no
///         flash swaps, no protocol fee, no price oracle.

interface ISwapERC20 {
    function balanceOf(address owner) external view returns (uint256);
    function transfer(address to, uint256 value) external returns (bool);
    function transferFrom(address from, address to, uint256 value) external returns (bool);
}

/// @notice One pool of two tokens. Invariant: after a swap, with 0.3% of each input taken
///         as the fee, reserve0 * reserve1 does not decrease.
contract SwapPair {
    address public immutable factory;
    address public immutable token0;
    address public immutable token1;
    uint112 private reserve0;
    uint112 private reserve1;
    uint256 public totalSupply;
    mapping(address => uint256) public liquidityOf;
    uint256 private unlocked = 1;

    event Mint(address indexed sender, uint256 amount0, uint256 amount1, uint256 liquidity);
    event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to);
    event Sync(uint112 reserve0, uint112 reserve1);

    error Locked();
    error InsufficientLiquidity();
    error InsufficientOutput();
    error InsufficientInput();
    error InvalidTo();
    error KInvariant();
    error TransferFailed();
    error Overflow();

    modifier lock() {
        if (unlocked != 1) revert Locked();
        unlocked = 0;
        _;
        unlocked = 1;
    }

    constructor(address tokenA, address tokenB) {
        factory = msg.sender;
        (token0, token1) = tokenA < tokenB ? (tokenA, tokenB) : (tokenB, tokenA);
    }

    function getReserves() external view returns (uint112, uint112, uint32) {
        return (reserve0, reserve1, 0);
    }

    /// @notice Credits liquidity for tokens already transferred to the pair.
    function mint(address to) external lock returns (uint256 liquidity) {
        uint256 balance0 = ISwapERC20(token0).balanceOf(address(this));
        uint256 balance1 = ISwapERC20(token1).balanceOf(address(this));
        uint256 amount0 = balance0 - reserve0;
        uint256 amount1 = balance1 - reserve1;
        if (totalSupply == 0) {
            liquidity = sqrt(amount0 * amount1);
        } else {
            uint256 a = (amount0 * totalSupply) / reserve0;
            uint256 b = (amount1 * totalSupply) / reserve1;
            liquidity = a < b ? a : b;
        }
        if (liquidity == 0) revert InsufficientLiquidity();
        totalSupply += liquidity;
        liquidityOf[to] += liquidity;
        update(balance0, balance1);
        emit Mint(msg.sender, amount0, amount1, liquidity);
    }

    /// @notice Sends the outputs, then checks that the inputs already received pay for them.
    function swap(uint256 amount0Out, uint256 amount1Out, address to) external lock {
        if (amount0Out == 0 && amount1Out == 0) revert InsufficientOutput();
        if (amount0Out >= reserve0 || amount1Out >= reserve1) revert InsufficientLiquidity();
        if (to == token0 || to == token1) revert InvalidTo();
        if (amount0Out > 0) safeTransfer(token0, to, amount0Out);
        if (amount1Out > 0) safeTransfer(token1, to, amount1Out);
        uint256 balance0 = ISwapERC20(token0).balanceOf(address(this));
        uint256 balance1 = ISwapERC20(token1).balanceOf(address(this));
        uint256 amount0In = balance0 > reserve0 - amount0Out ? balance0 - (reserve0 - amount0Out) : 0;
        uint256 amount1In = balance1 > reserve1 - amount1Out ? balance1 - (reserve1 - amount1Out) : 0;
        if (amount0In == 0 && amount1In == 0) revert InsufficientInput();
        // Fee-adjusted balances, scaled by 1000 to keep integers: x' * y' >= x * y * 1000^2.
        uint256 adjusted0 = balance0 * 1000 - amount0In * 3;
        uint256 adjusted1 = balance1 * 1000 - amount1In * 3;
        if (adjusted0 * adjusted1 < uint256(reserve0) * uint256(reserve1) * 1_000_000) revert KInvariant();
        update(balance0, balance1);
        emit Swap(msg.sender, amount0In, amount1In, amount0Out, amount1Out, to);
    }

    function update(uint256 balance0, uint256 balance1) private {
        if (balance0 > type(uint112).max || balance1 > type(uint112).max) revert Overflow();
        reserve0 = uint112(balance0);
        reserve1 = uint112(balance1);
        emit Sync(reserve0, reserve1);
    }

    function safeTransfer(address token, address to, uint256 value) private {
        // Tokens that return nothing (USDT on Ethereum) count as success when the call did not revert.
        (bool ok, bytes memory data) = token.call(abi.encodeWithSelector(ISwapERC20.transfer.selector, to, value));
        if (!ok || (data.length != 0 && !abi.decode(data, (bool)))) revert TransferFailed();
    }

    function sqrt(uint256 y) private pure returns (uint256 z) {
        if (y > 3) {
            z = y;
            uint256 x = y / 2 + 1;
            while (x < z) {
                z = x;
                x = (y / x + x) / 2;
            }
        } else if (y != 0) {
            z = 1;
        }
    }
}

/// @notice Registry of pairs: one per unordered token pair.
contract SwapFactory {
    mapping(address => mapping(address => address)) public getPair;
    address[] public allPairs;

    event PairCreated(address indexed token0, address indexed token1, address pair, uint256);

    error IdenticalAddresses();
    error ZeroAddress();
    error PairExists();

    function allPairsLength() external view returns (uint256) {
        return allPairs.length;
    }

    function createPair(address tokenA, address tokenB) external returns (address pair) {
        if (tokenA == tokenB) revert IdenticalAddresses();
        if (tokenA == address(0) || tokenB == address(0)) revert ZeroAddress();
        if (getPair[tokenA][tokenB] != address(0)) revert PairExists();
        pair = address(new SwapPair(tokenA, tokenB));
        getPair[tokenA][tokenB] = pair;
        getPair[tokenB][tokenA] = pair;
        allPairs.push(pair);
        emit PairCreated(tokenA < tokenB ? tokenA : tokenB, tokenA < tokenB ? tokenB : tokenA, pair, allPairs.length);
    }
}

/// @notice Quotes and swaps along a path of pairs, with Uniswap V2 Router02's signatures.
contract SwapRouter {
    address public immutable factory;
    /// @notice Wrapped native coin for routes through it; zero when the chain has none here.
    address public immutable WETH;

    error Expired();
    error InvalidPath();
    error NoPair(address tokenA, address tokenB);
    error InsufficientOutputAmount(uint256 amountOut, uint256 amountOutMin);
    error InsufficientInputAmount();
    error InsufficientLiquidity();
    error TransferFromFailed();

    constructor(address factory_, address weth_) {
        factory = factory_;
        WETH = weth_;
    }

    function getAmountOut(uint256 amountIn, uint256 reserveIn, uint256 reserveOut) public pure returns (uint256) {
        if (amountIn == 0) revert InsufficientInputAmount();
        if (reserveIn == 0 || reserveOut == 0) revert InsufficientLiquidity();
        uint256 amountInWithFee = amountIn * 997;
        return (amountInWithFee * reserveOut) / (reserveIn * 1000 + amountInWithFee);
    }

    function getAmountsOut(uint256 amountIn, address[] memory path) public view returns (uint256[] memory amounts) {
        if (path.length < 2) revert InvalidPath();
        amounts = new uint256[](path.length);
        amounts[0] = amountIn;
        for (uint256 i; i < path.length - 1; i++) {
            (uint256 reserveIn, uint256 reserveOut) = reservesOf(path[i], path[i + 1]);
            amounts[i + 1] = getAmountOut(amounts[i], reserveIn, reserveOut);
        }
    }

    function swapExactTokensForTokens(
        uint256 amountIn,
        uint256 amountOutMin,
        address[] calldata path,
        address to,
        uint256 deadline
    ) external returns (uint256[] memory amounts) {
        if (block.timestamp > deadline) revert Expired();
        amounts = getAmountsOut(amountIn, path);
        uint256 out = amounts[amounts.length - 1];
        if (out < amountOutMin) revert InsufficientOutputAmount(out, amountOutMin);
        safeTransferFrom(path[0], msg.sender, pairFor(path[0], path[1]), amounts[0]);
        for (uint256 i; i < path.length - 1; i++) {
            (address input, address output) = (path[i], path[i + 1]);
            address token0 = input < output ? input : output;
            uint256 amountOut = amounts[i + 1];
            (uint256 amount0Out, uint256 amount1Out) = input == token0 ? (uint256(0), amountOut) : (amountOut, uint256(0));
            address next = i < path.length - 2 ? pairFor(output, path[i + 2]) : to;
            SwapPair(pairFor(input, output)).swap(amount0Out, amount1Out, next);
        }
    }

    /// @notice Devnet seeding: moves both amounts from the caller into the pair (creating it) and mints liquidity.
    function addLiquidity(address tokenA, address tokenB, uint256 amountA, uint256 amountB, address to) external returns (uint256) {
        address pair = SwapFactory(factory).getPair(tokenA, tokenB);
        if (pair == address(0)) pair = SwapFactory(factory).createPair(tokenA, tokenB);
        safeTransferFrom(tokenA, msg.sender, pair, amountA);
        safeTransferFrom(tokenB, msg.sender, pair, amountB);
        return SwapPair(pair).mint(to);
    }

    function pairFor(address tokenA, address tokenB) private view returns (address pair) {
        pair = SwapFactory(factory).getPair(tokenA, tokenB);
        if (pair == address(0)) revert NoPair(tokenA, tokenB);
    }

    function reservesOf(address tokenA, address tokenB) private view returns (uint256, uint256) {
        SwapPair pair = SwapPair(pairFor(tokenA, tokenB));
        (uint112 r0, uint112 r1, ) = pair.getReserves();
        return tokenA == pair.token0() ? (uint256(r0), uint256(r1)) : (uint256(r1), uint256(r0));
    }

    function safeTransferFrom(address token, address from, address to, uint256 value) private {
        (bool ok, bytes memory data) = token.call(abi.encodeWithSelector(ISwapERC20.transferFrom.selector, from, to, value));
        if (!ok || (data.length != 0 && !abi.decode(data, (bool)))) revert TransferFromFailed();
    }
}
